// Engine throughput on deterministic lanes, reported as ratios to JSON.parse alone on the same lines
// (the ingest floor), each the median of several runs measured back to back in one process. Alone:
// `node dist/scripts/bench/engine.js`; with `SIGMAD_BENCH_BASELINE=<built checkout>` that build's engine
// runs the same lanes in the same runs, and a row per lane gives this build's engine time over its.
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { builtin, loadCorpus } from '../conformance/conformance.js';
import { RULE_DIRS } from '../conformance/regression-cases.js';
import type { EventLogsource } from '../../sigma/engine/index.js';
import type { RuleSet } from '../../sigma/rule-set.js';
import { isMain, median, printRows, type BenchRow } from './bench-row.js';
import { allLanes, type Lane } from './lanes.js';


function parseOnlyRate(lines: readonly string[]): number {
  let sink = 0;
  const t0 = performance.now();
  for (const line of lines) sink += (JSON.parse(line) as object) === null ? 1 : 0;
  const dt = performance.now() - t0;
  if (sink < 0) throw new Error('unreachable');
  return lines.length / (dt / 1000);
}

export function engineRate(ruleSet: RuleSet, lines: readonly string[], logsource?: EventLogsource): { rate: number; matches: number } {
  const ctx = logsource !== undefined ? { logsource } : undefined;
  let matches = 0;
  const t0 = performance.now();
  for (const line of lines) matches += ruleSet.engine.evaluate(JSON.parse(line) as Record<string, unknown>, ctx).length;
  const dt = performance.now() - t0;
  return { rate: lines.length / (dt / 1000), matches };
}

/** Logsource the routed variant of each lane declares, as a shipper would per input. */
const LANE_LOGSOURCE: Readonly<Record<string, EventLogsource>> = {
  'sysmon-process-creation': { product: 'windows', service: 'sysmon' },
  'sysmon-process-creation, unique command lines': { product: 'windows', service: 'sysmon' },
  'sysmon-file-event': { product: 'windows', service: 'sysmon' },
  'raw-message': { product: 'windows', service: 'security' },
};

/** The plain and routed rule sets of another build (its own loader and engine, this corpus). */
async function baselineRuleSets(root: string): Promise<{ plain: RuleSet; routed: RuleSet }> {
  const other = (await import(join(resolve(root), 'dist/scripts/conformance/conformance.js'))) as typeof import('../conformance/conformance.js');
  return { plain: (await other.loadCorpus([], RULE_DIRS)).ruleSet, routed: (await other.loadCorpus([other.builtin('sysmon')], RULE_DIRS)).ruleSet };
}

export async function runEngineBench(options: { events?: number; runs?: number; baseline?: string } = {}): Promise<BenchRow[]> {
  const events = options.events ?? 20_000;
  const runs = options.runs ?? 5;
  const rows: BenchRow[] = [];
  const loads: number[] = [];
  let plain: RuleSet | undefined;
  for (let i = 0; i < 3; i++) {
    const c = await loadCorpus();
    loads.push(c.loadMs);
    plain = c.ruleSet;
  }
  if (plain === undefined) throw new Error('no corpus');
  rows.push({ name: `corpus load (${plain.engine.rules.length} detection rules), median of 3`, value: Math.round(median(loads)), unit: 'ms' });
  const routed = (await loadCorpus([builtin('sysmon')])).ruleSet;
  const base = options.baseline !== undefined ? await baselineRuleSets(options.baseline) : null;

  const lanes: Lane[] = allLanes(events);
  for (const lane of lanes) {
    const warm = lane.lines.slice(0, 2000);
    engineRate(plain, warm);
    engineRate(routed, warm, LANE_LOGSOURCE[lane.name]);
    if (base !== null) {
      engineRate(base.plain, warm);
      engineRate(base.routed, warm, LANE_LOGSOURCE[lane.name]);
    }
    const baseTime: number[] = [];
    const baseRoutedTime: number[] = [];
    const parse: number[] = [];
    const ratio: number[] = [];
    const routedRatio: number[] = [];
    const rate: number[] = [];
    const routedRate: number[] = [];
    let matches = 0;
    for (let r = 0; r < runs; r++) {
      const p = parseOnlyRate(lane.lines);
      const e = engineRate(plain, lane.lines);
      const er = engineRate(routed, lane.lines, LANE_LOGSOURCE[lane.name]);
      parse.push(p);
      rate.push(e.rate);
      routedRate.push(er.rate);
      ratio.push(e.rate / p);
      routedRatio.push(er.rate / p);
      matches = e.matches;
      if (base !== null) {
        baseTime.push(engineRate(base.plain, lane.lines).rate / e.rate);
        baseRoutedTime.push(engineRate(base.routed, lane.lines, LANE_LOGSOURCE[lane.name]).rate / er.rate);
      }
    }
    rows.push({ name: `${lane.name}: JSON.parse only`, value: Math.round(median(parse)), unit: 'events/s' });
    rows.push({ name: `${lane.name}: engine (parse + evaluate), ${matches} matches`, value: Math.round(median(rate)), unit: 'events/s' });
    rows.push({ name: `${lane.name}: engine / JSON.parse`, value: Number(median(ratio).toFixed(3)), unit: 'ratio' });
    rows.push({ name: `${lane.name}: routed (sysmon pipeline + logsource)`, value: Math.round(median(routedRate)), unit: 'events/s' });
    rows.push({ name: `${lane.name}: routed / JSON.parse`, value: Number(median(routedRatio).toFixed(3)), unit: 'ratio' });
    if (base !== null) {
      rows.push({ name: `${lane.name}: engine time (parse + evaluate), this build / baseline`, value: Number(median(baseTime).toFixed(3)), unit: 'ratio' });
      rows.push({ name: `${lane.name}: routed engine time, this build / baseline`, value: Number(median(baseRoutedTime).toFixed(3)), unit: 'ratio' });
    }
  }
  return rows;
}

if (isMain(import.meta.url)) {
  const events = Number(process.env['BENCH_EVENTS'] ?? 20_000);
  printRows('Engine (single thread, full SigmaHQ corpus; ratios are medians of 5 runs)', await runEngineBench({ events, baseline: process.env['SIGMAD_BENCH_BASELINE'] }));
}
