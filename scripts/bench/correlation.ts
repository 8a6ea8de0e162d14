// Correlation benchmarks: updates/s per correlation type and heap bytes per live group.
// Run after `npm run build`: `node --expose-gc dist/scripts/bench/correlation.js` (without
// --expose-gc the heap rows are less precise: garbage is not collected before measuring).
import { isMain, median, printRows, type BenchRow } from './bench-row.js';
import { CorrelationRuntime } from '../../actors/correlation/index.js';
import type { CorrelationRule, CorrelationType } from '../../sigma/ast.js';
import { compileCorrelations } from '../../sigma/correlation/index.js';


const T0 = 1_767_225_600_000;
const DETECTIONS = [{ name: 'r0' }, { name: 'r1' }, { name: 'r2' }];
const R0 = [{ name: 'r0' }];
const ORDERED_MATCHES = [[{ name: 'r0' }], [{ name: 'r1' }], [{ name: 'r2' }]] as const;

function rule(type: CorrelationType, extra: Partial<CorrelationRule> = {}): CorrelationRule {
  return {
    kind: 'correlation',
    file: 'bench.yml',
    doc: 0,
    title: `bench ${type}`,
    tags: [],
    custom: {},
    type,
    rules: ['r0'],
    groupBy: ['host'],
    timespanMs: 300_000,
    condition: { ops: { gte: 1_000_000 } },
    aliases: {},
    generate: true,
    options: {},
    ...extra,
  };
}

function runtime(r: CorrelationRule, maxStateEntries = 100_000): CorrelationRuntime {
  const set = compileCorrelations([r], DETECTIONS);
  if (set.errors.length > 0) throw new Error(set.errors.map(String).join('\n'));
  return new CorrelationRuntime(set.correlations, { timestampFields: ['t'], maxStateEntries });
}

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

export function heapUsed(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

/** Updates per second of `n` events produced by `event(i)`, all matched by `matches(i)`. */
function rate(rt: CorrelationRuntime, n: number, matches: (i: number) => readonly { name: string }[], event: (i: number) => unknown): number {
  const started = performance.now();
  for (let i = 0; i < n; i++) rt.onEvent(matches(i), event(i), 0);
  return Math.round(n / ((performance.now() - started) / 1000));
}

const hosts = (n: number) => Array.from({ length: n }, (_, i) => `host-${i.toString().padStart(6, '0')}`);

/** Heap per live event_count group: 100k groups, one entry each (group key strings included). */
function heapAt100kGroups(): BenchRow[] {
  const before = heapUsed();
  const live = runtime(rule('event_count'));
  for (let i = 0; i < 100_000; i++) live.onEvent(R0, { t: T0 + i, host: `host-${i.toString().padStart(6, '0')}` }, 0);
  const after = heapUsed();
  return [
    { name: 'correlation_heap_per_group_100k', value: Math.round((after - before) / live.stateEntries), unit: 'bytes' },
    { name: 'correlation_groups_100k', value: live.stateEntries, unit: 'groups' },
  ];
}

/** The 100k cap with 1M distinct keys offered: throughput while evicting, then heap per group. */
function cappedAt100k(): BenchRow[] {
  const before = heapUsed();
  const capped = runtime(rule('event_count'), 100_000);
  const started = performance.now();
  for (let i = 0; i < 1_000_000; i++) capped.onEvent(R0, { t: T0 + i, host: `k${i}` }, 0);
  const seconds = (performance.now() - started) / 1000;
  const after = heapUsed();
  return [
    { name: 'correlation_capped_1m_keys_updates', value: Math.round(1_000_000 / seconds), unit: 'updates/s' },
    { name: 'correlation_capped_live_groups', value: capped.stateEntries, unit: 'groups' },
    { name: 'correlation_capped_heap_per_group', value: Math.round((after - before) / capped.stateEntries), unit: 'bytes' },
  ];
}

const FILLS = [10, 1_000, 10_000, 100_000] as const;
const CHUNK = 20_000;
const ROUNDS = 7;
const UNREACHABLE = { ops: { gte: 1e12 } };

/** One correlation of each type over one group (`host`), its condition never met so nothing fires. */
const PER_TYPE: readonly { type: CorrelationType; extra: Partial<CorrelationRule> }[] = [
  { type: 'event_count', extra: { condition: UNREACHABLE } },
  { type: 'value_count', extra: { condition: { ...UNREACHABLE, field: ['User'] } } },
  { type: 'temporal', extra: { rules: ['r0', 'r1', 'r2'], condition: { ops: { gte: 4 } } } },
  { type: 'temporal_ordered', extra: { rules: ['r0', 'r1', 'r2'], condition: { ops: { gte: 4 } } } },
  { type: 'value_sum', extra: { condition: { ...UNREACHABLE, field: ['bytes'] } } },
  { type: 'value_avg', extra: { condition: { ...UNREACHABLE, field: ['bytes'] } } },
  { type: 'value_percentile', extra: { percentile: 95, condition: { ...UNREACHABLE, field: ['bytes'] } } },
  { type: 'value_median', extra: { condition: { ...UNREACHABLE, field: ['bytes'] } } },
];

/**
 * One group's window held at `fill` entries: events 1 ms apart in a `fill` ms sliding window, so each event adds
 * one entry and trims one (the steady state). Each call feeds it a chunk and answers its ns per event.
 */
function filledGroup(type: CorrelationType, extra: Partial<CorrelationRule>, fill: number): () => number {
  const rt = runtime(rule(type, { ...extra, timespanMs: fill - 1 }));
  const users = 500;
  const event = (i: number) => ({ t: T0 + i, host: 'h', User: `u${(i * 7919) % users}`, bytes: (i * 7919) % 100_000 });
  // Every event a hit of the correlation, so the window holds `fill` entries: one-rule types match r0 each time.
  const matches = (extra.rules?.length ?? 1) > 1 ? (i: number) => ORDERED_MATCHES[i % 3] ?? R0 : () => R0;
  let i = 0;
  for (; i < fill; i++) rt.onEvent(matches(i), event(i), 0);
  return () => {
    const started = performance.now();
    for (const end = i + CHUNK; i < end; i++) rt.onEvent(matches(i), event(i), 0);
    return ((performance.now() - started) * 1e6) / CHUNK;
  };
}

/**
 * Issue 19 §1: per-event cost of each type at 10, 1k, 10k and 100k entries, and 100k over 10. The four groups
 * are fed a chunk each in turn, ROUNDS times, so that the load of the moment, the collector's and the JIT's
 * state reach all four alike: each fill's figure is its fastest chunk (the slower ones measure other
 * processes), the ratio the median of the rounds' ratios.
 */
function costByFill(): BenchRow[] {
  const rows: BenchRow[] = [];
  for (const { type, extra } of PER_TYPE) {
    filledGroup(type, extra, 1_000)(); // warm-up: the first figure would otherwise include compiling the code
    const groups = FILLS.map((fill) => filledGroup(type, extra, fill));
    const rounds = Array.from({ length: ROUNDS }, () => groups.map((chunk) => chunk()));
    FILLS.forEach((fill, k) =>
      rows.push({ name: `correlation_${type}_at_${fill}_entries`, value: Math.round(Math.min(...rounds.map((r) => r[k] as number))), unit: 'ns/event' }),
    );
    const ratio = median(rounds.map((r) => (r[FILLS.length - 1] as number) / (r[0] as number)));
    rows.push({ name: `correlation_${type}_100k_vs_10`, value: Number(ratio.toFixed(2)), unit: 'ratio (target <= 1.5; median of the rounds)' });
  }
  return rows;
}

/** Heap rows need `--expose-gc`: without a collection before each reading they measure garbage. */
const canMeasureHeap = typeof (globalThis as { gc?: unknown }).gc === 'function';

export async function runCorrelationBench(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const h1k = hosts(1_000);
  const users = Array.from({ length: 1_000 }, (_, i) => `CORP\\user${i}`);

  // event_count: 1,000 hosts, one event per 10 ms, so windows hold about 30 entries.
  const counted = runtime(rule('event_count'));
  rows.push({
    name: 'correlation_event_count_updates',
    value: rate(counted, 300_000, () => R0, (i) => ({ t: T0 + i * 10, host: h1k[i % 1_000] })),
    unit: 'updates/s',
  });

  // value_count: 10 groups, each holding 1,000 entries with 1,000 distinct users in its window.
  const distinct = runtime(rule('value_count', { timespanMs: 100_000, condition: { ops: { gte: 1_000_000 }, field: ['User'] } }));
  rows.push({
    name: 'correlation_value_count_1k_values_updates',
    value: rate(distinct, 30_000, () => R0, (i) => ({ t: T0 + i * 10, host: h1k[i % 10], User: users[Math.floor(i / 10) % 1_000] })),
    unit: 'updates/s',
  });

  // temporal_ordered: three rules in turn on 1,000 hosts.
  const ordered = runtime(rule('temporal_ordered', { rules: ['r0', 'r1', 'r2'], condition: null }));
  rows.push({
    name: 'correlation_temporal_ordered_updates',
    value: rate(ordered, 300_000, (i) => ORDERED_MATCHES[Math.floor(i / 1_000) % 3] ?? R0, (i) => ({ t: T0 + i * 10, host: h1k[i % 1_000] })),
    unit: 'updates/s',
  });

  // value_percentile: 100 hosts with about 300 values each in the window.
  const pct = runtime(rule('value_percentile', { percentile: 95, condition: { ops: { gte: 1_000_000 }, field: ['bytes'] } }));
  rows.push({
    name: 'correlation_value_percentile_updates',
    value: rate(pct, 50_000, () => R0, (i) => ({ t: T0 + i * 10, host: h1k[i % 100], bytes: (i * 7919) % 100_000 })),
    unit: 'updates/s',
  });

  rows.push(...costByFill());
  if (canMeasureHeap) rows.push(...heapAt100kGroups());
  rows.push(...cappedAt100k().filter((r) => canMeasureHeap || r.unit !== 'bytes'));
  return rows;
}

if (isMain(import.meta.url)) printRows('Correlation', await runCorrelationBench());
