// Risk layer benchmarks (issue 14): cost per result through the stage with 100k open entities, the
// 1 s tick with 100k open entities, and heap per entity holding 10 contributions. Run after `npm run build`: `node --expose-gc dist/scripts/bench/risk.js`.
import { quietRiskObserver } from '../../actors/index.js';
import type { RiskFile } from '../../protocol/index.js';
import { RiskStage } from '../../streams/index.js';
import type { CommittedResult, JournalBuffer } from '../../streams/index.js';
import { line } from './alert.js';
import { isMain, median, printRows, type BenchRow } from './bench-row.js';
import { heapUsed } from './correlation.js';
import { cpuMicros, stageCost } from './stage-cost.js';

const NOW = 1_767_225_600;
/** One object per result: the command line (unique per `i`), so entities = distinct results. */
const FILE: RiskFile = {
  score: { level_scores: { high: 10 } },
  objects: [{ type: 'cmd', selector: 'match.CommandLine' }],
  incident: { window: '24h', score_threshold: 1_000_000, caps: { max_open_entities: 200_000 } },
};

function stage(): { stage: RiskStage; journal: JournalBuffer } {
  const journal: JournalBuffer = { at: NOW * 1000, drafts: [], tickedAt: -1 };
  const s = new RiskStage(journal, quietRiskObserver);
  s.load(FILE);
  return { stage: s, journal };
}

function feed(s: RiskStage, journal: JournalBuffer, lines: readonly CommittedResult[]): void {
  for (let i = 0; i < lines.length; i += 500) {
    s.apply(lines.slice(i, i + 500));
    journal.drafts.length = 0;
  }
}

const lines = (ids: readonly number[]): CommittedResult[] => ids.map(line);

/** µs per result through `apply` (score, objects, accumulate, journal, new text) with 100k open entities, beside the shared parse. */
function costPerResult(): BenchRow[] {
  const { stage: s, journal } = stage();
  feed(s, journal, lines(Array.from({ length: 100_000 }, (_, i) => i)));
  // Half the lane adds to open entities, half opens new ones (lines made before the clock starts).
  const lane = lines(Array.from({ length: 20_000 }, (_, k) => (k % 2 === 0 ? k * 5 : 200_000 + k)));
  return [
    { name: 'risk_open_entities', value: s.layer.accumulator.entities.size, unit: 'entities' },
    ...stageCost({ stage: 'risk_cost_per_result_100k_entities', parse: 'risk_result_parse_per_result', ratio: 'risk_cost_over_json_parse', withParse: 'risk_cost_with_parse_over_json_parse' }, lane, (ls) => feed(s, journal, ls)),
  ];
}

/**
 * µs per tick with 100k open entities, opened 1k a second over 100 s: a tick that expires nothing
 * (most ticks: it only asks whether one is due) and one that expires the 1k entities of one second.
 */
function tickCost(): BenchRow[] {
  const { stage: s, journal } = stage();
  for (let k = 0; k < 100; k++) {
    journal.at = (NOW + k) * 1000;
    feed(s, journal, lines(Array.from({ length: 1000 }, (_, i) => k * 1000 + i)));
  }
  const idle: number[] = [];
  for (let r = 0; r < 5; r++) {
    const t = cpuMicros();
    for (let i = 0; i < 1000; i++) s.tick(NOW + 100 + i);
    idle.push((cpuMicros() - t) / 1000);
  }
  const expiring: number[] = [];
  for (let k = 0; k < 100; k++) {
    const t = cpuMicros();
    s.tick(NOW + 86_400 + k);
    expiring.push(cpuMicros() - t);
    journal.drafts.length = 0;
  }
  return [
    { name: 'risk_tick_idle_100k_entities', value: Number(median(idle).toFixed(2)), unit: 'µs/tick' },
    { name: 'risk_tick_expiring_1k_of_100k_entities', value: Number(median(expiring.slice(0, 10)).toFixed(0)), unit: 'µs/tick' },
    { name: 'risk_open_entities_after_expiring_ticks', value: s.layer.accumulator.entities.size, unit: 'entities' },
  ];
}

/** Heap per entity holding 10 contributions (10k entities). */
function heapPerEntity(): BenchRow {
  const ids = lines(Array.from({ length: 10_000 }, (_, i) => i));
  const before = heapUsed();
  const { stage: s, journal } = stage();
  for (let r = 0; r < 10; r++) feed(s, journal, ids);
  const after = heapUsed();
  return { name: 'risk_heap_per_entity_10_contributions', value: Math.round((after - before) / s.layer.accumulator.entities.size), unit: 'bytes' };
}

export function runRiskBench(): BenchRow[] {
  return [...costPerResult(), ...tickCost(), heapPerEntity()];
}

if (isMain(import.meta.url)) printRows('Risk layer', runRiskBench());
