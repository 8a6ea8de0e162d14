// Alert pipeline benchmarks (issue 13): cost per result through the stage with 100k active dedup
// entries and 10k open incidents, heap per dedup entry and per incident, and the replay of 1M journal
// records. Run after `npm run build`: `node --expose-gc dist/scripts/bench/alert.js`.
import { quietObserver } from '../../actors/alert/index.js';
import type { AlertResult } from '../../actors/alert/index.js';
import type { AlertPipelineFile } from '../../protocol/alert-pipeline.js';
import { AlertStage } from '../../streams/index.js';
import type { CommittedResult, JournalBuffer } from '../../streams/index.js';
import { isMain, median, printRows, type BenchRow } from './bench-row.js';
import { heapUsed } from './correlation.js';
import { stageCost } from './stage-cost.js';

const NOW = 1_767_225_600;
const FILE: AlertPipelineFile = {
  inhibit_rules: [{ name: 'crit-mutes-low', source_match: [{ selector: 'level', value: 'critical' }], target_match: [{ selector: 'level', value: 'low' }], equal: ['event.Computer'], duration: '5m' }],
  dedup: { fingerprint: ['event.Computer', 'match.CommandLine'], resolve_timeout: '1h' },
  group: { by: ['event.Computer'], group_wait: '30s', resolve_timeout: '1h' },
};

/** A Sysmon process-creation detection as the daemon emits it (event retained for the selectors). */
function detection(i: number): AlertResult {
  const host = `WS-${(i % 10_000).toString().padStart(5, '0')}`;
  const cmd = `C:\\Windows\\System32\\cmd.exe /c whoami ${i}`;
  return {
    rule_title: 'Whoami Execution',
    rule_id: '6f1a0c1e-0000-4000-8000-000000000001',
    level: 'high',
    tags: ['attack.discovery', 'attack.t1033'],
    matched_selections: ['selection'],
    matched_fields: [{ field: 'CommandLine', value: cmd }],
    event: { EventID: 1, Channel: 'Microsoft-Windows-Sysmon/Operational', Computer: host, Image: 'C:\\Windows\\System32\\whoami.exe', CommandLine: cmd, User: 'CORP\\alice' },
  };
}

export function line(i: number): CommittedResult {
  const result_id = `e${i.toString(16).padStart(12, '0')}-0`;
  return { result_id, head: { rule_title: 'Whoami Execution', rule_id: null, level: 'high' }, text: JSON.stringify({ result_id, ...detection(i) }) };
}

function stage(file: AlertPipelineFile): { stage: AlertStage; journal: JournalBuffer } {
  const journal: JournalBuffer = { at: NOW * 1000, drafts: [], tickedAt: -1 };
  const s = new AlertStage(journal, quietObserver);
  s.load(file);
  return { stage: s, journal };
}

/** µs per result through `apply` (inhibit, silence, dedup, group, journal, new text) on a full store, beside the shared parse. */
function costPerResult(): BenchRow[] {
  const { stage: s, journal } = stage(FILE);
  const feed = (lines: readonly CommittedResult[]): void => {
    for (let i = 0; i < lines.length; i += 500) {
      s.apply(lines.slice(i, i + 500));
      journal.drafts.length = 0;
    }
  };
  feed(Array.from({ length: 100_000 }, (_, i) => line(i)));
  const entries = s.pipeline.dedup.alerts.size;
  const incidents = s.pipeline.incidents.incidents.size;
  // Half the lane folds into live entries, half carries new fingerprints (passing the full store).
  const lane = Array.from({ length: 20_000 }, (_, k) => line(k % 2 === 0 ? k * 5 : 200_000 + k));
  return [
    { name: 'alert_store_dedup_entries', value: entries, unit: 'entries' },
    { name: 'alert_store_open_incidents', value: incidents, unit: 'incidents' },
    ...stageCost({ stage: 'alert_cost_per_result_full_store', parse: 'alert_result_parse_per_result', ratio: 'alert_cost_over_json_parse', withParse: 'alert_cost_with_parse_over_json_parse' }, lane, feed),
  ];
}

function heapPer(file: AlertPipelineFile, n: number, count: (s: AlertStage) => number, name: string): BenchRow {
  const before = heapUsed();
  const { stage: s, journal } = stage(file);
  for (let i = 0; i < n; i += 500) {
    s.apply(Array.from({ length: 500 }, (_, k) => line(i + k)));
    journal.drafts.length = 0;
  }
  const after = heapUsed();
  return { name, value: Math.round((after - before) / count(s)), unit: 'bytes' };
}

/** Replays 1M `result` journal records (half folds) into a fresh stage, as start-up does (records kept as JSON text and decoded one at a time, as a replay reads them). */
function replay(): BenchRow[] {
  const { stage: live, journal } = stage(FILE);
  const records: string[] = [];
  for (let i = 0; i < 1_000_000; i += 1000) {
    live.apply(Array.from({ length: 1000 }, (_, k) => line((i + k) % 2 === 0 ? i + k : (i + k) % 50_000)));
    for (const d of journal.drafts) records.push(JSON.stringify(d.event));
    journal.drafts.length = 0;
  }
  const runs: number[] = [];
  const ratios: number[] = [];
  for (let r = 0; r < 3; r++) {
    const kind = stage({}).stage.kind();
    const t0 = performance.now();
    kind.replay('', { t: 'config', file: FILE } as never);
    for (const text of records) {
      const e: unknown = JSON.parse(text);
      if (kind.isEvent(e)) kind.replay('', e);
    }
    const took = (performance.now() - t0) / 1000;
    runs.push(took);
    const p0 = performance.now();
    for (const text of records) JSON.parse(text);
    ratios.push(took / ((performance.now() - p0) / 1000));
  }
  return [
    { name: 'alert_replay_records', value: records.length, unit: 'records' },
    { name: 'alert_replay_bytes_per_record', value: Math.round(records.reduce((n, t) => n + t.length, 0) / records.length), unit: 'bytes of JSON' },
    { name: 'alert_replay_1m_records', value: Number(median(runs).toFixed(2)), unit: 's (median of 3; JSON-decoded, checked and applied)' },
    { name: 'alert_replay_over_json_parse', value: Number(median(ratios).toFixed(2)), unit: 'x JSON.parse of the same records (median of 3)' },
  ];
}

export function runAlertBench(): BenchRow[] {
  return [
    ...costPerResult(),
    heapPer({ dedup: { fingerprint: ['event.Computer', 'match.CommandLine'] } }, 100_000, (s) => s.pipeline.dedup.alerts.size, 'alert_heap_per_dedup_entry'),
    heapPer({ group: { by: ['match.CommandLine'], caps: { max_open_incidents: 10_000 } } }, 10_000, (s) => s.pipeline.incidents.incidents.size, 'alert_heap_per_incident'),
    ...replay(),
  ];
}

if (isMain(import.meta.url)) printRows('Alert pipeline', runAlertBench());
