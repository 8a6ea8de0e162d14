// The field observer and the schema observer against small reference models (daemon-semantics §13.1,
// §13.3): key cap and overflow, since-reset and lifetime counts, resets, the coverage join, pagination,
// and the metrics bridged from lifetime counts (monotonic across resets).
import fc from 'fast-check';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../../protocol/index.js';
import type { RuleFieldSet } from '../../../sigma/index.js';
import { FieldObserver, ObserveStage, SchemaObserver } from '../../../streams/index.js';
import type { ObserveSettings } from '../../../streams/index.js';
import { observeLines } from './observe-lines.js';
import { command } from '../../actors/alert/support.js';

const KEYS = ['a', 'b', 'c', 'd', 'e'];
const RULE_FIELDS: RuleFieldSet = new Map([
  ['a', { sources: new Set(['detection'] as const), titles: new Set(['R1', 'R2']) }],
  ['z', { sources: new Set(['correlation', 'metadata'] as const), titles: new Set(['R3']) }],
]);
const MAX_KEYS = 3;

interface Model {
  now: number;
  counts: Map<string, number>;
  events: number;
  overflow: number;
  lifetimeEvents: number;
  lifetimeOverflow: number;
  since: number;
}
interface Real {
  readonly observer: FieldObserver;
  readonly stage: ObserveStage;
  readonly metrics: ReturnType<typeof createMetrics>;
  readonly clock: { now: number };
}

const metricValue = async (r: Real, name: string): Promise<number> => (await r.metrics.registry.getSingleMetric(name)?.get())?.values[0]?.value ?? 0;

function check(m: Model, r: Real): void {
  const report = r.observer.report({ limit: 2, offset: 0 });
  const unknown = [...m.counts].filter(([k]) => !RULE_FIELDS.has(k)).sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1));
  const missing = [...RULE_FIELDS.keys()].filter((k) => !m.counts.has(k)).sort();
  expect(report.summary).toEqual({
    events_observed: m.events,
    unique_keys_observed: m.counts.size,
    rule_fields_loaded: RULE_FIELDS.size,
    overflow_dropped: m.overflow,
    max_keys: MAX_KEYS,
    uptime_seconds: (m.now - m.since) / 1000,
    intersection_count: m.counts.size - unknown.length,
    unknown_count: unknown.length,
    missing_count: missing.length,
  });
  expect(report.unknown.items).toEqual(unknown.slice(0, 2).map(([field, count]) => ({ field, count })));
  expect(report.unknown.next_offset).toBe(unknown.length > 2 ? 2 : null);
  expect(report.missing.items.map((i) => i.field)).toEqual(missing.slice(0, 2));
}

const observe = (keys: string[]): fc.Command<Model, Real> =>
  command(`observe(${keys.join(',')})`, (m: Model, r: Real) => {
    r.observer.merge(1, { items: keys, counts: keys.map(() => 1) });
    m.events++;
    m.lifetimeEvents++;
    for (const k of keys) {
      if (m.counts.has(k)) m.counts.set(k, (m.counts.get(k) ?? 0) + 1);
      else if (m.counts.size < MAX_KEYS) m.counts.set(k, 1);
      else {
        m.overflow++;
        m.lifetimeOverflow++;
      }
    }
    check(m, r);
  });

const advance = (ms: number): fc.Command<Model, Real> =>
  command(`advance(${ms})`, (m: Model, r: Real) => {
    m.now += ms;
    r.clock.now = m.now;
  });

const reset = (): fc.Command<Model, Real> =>
  command('reset', (m: Model, r: Real) => {
    expect(r.observer.reset()).toEqual({ status: 'reset', previous_keys: m.counts.size, previous_events: m.events });
    m.counts = new Map();
    m.events = 0;
    m.overflow = 0;
    m.since = m.now;
    check(m, r);
  });

describe('FieldObserver (model)', () => {
  it('matches the reference model; lifetime metrics never go back', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.commands([fc.uniqueArray(fc.constantFrom(...KEYS), { maxLength: 4 }).map(observe), fc.integer({ min: 1, max: 5000 }).map(advance), fc.constant(null).map(reset)], { maxCommands: 40 }),
        async (cmds) => {
          const clock = { now: 0 };
          const metrics = createMetrics(new Registry());
          const observer = new FieldObserver(MAX_KEYS, () => RULE_FIELDS, () => clock.now);
          const stage = new ObserveStage({ metrics: metrics.handles, fields: observer });
          const model: Model = { now: 0, counts: new Map(), events: 0, overflow: 0, lifetimeEvents: 0, lifetimeOverflow: 0, since: 0 };
          const real: Real = { observer, stage, metrics, clock };
          fc.modelRun(() => ({ model, real }), cmds);
          stage.refreshMetrics();
          expect(await metricValue(real, 'svc_fields_observed_total')).toBe(model.lifetimeEvents);
          expect(await metricValue(real, 'svc_fields_observer_overflow_dropped_total')).toBe(model.lifetimeOverflow);
          expect(await metricValue(real, 'svc_fields_observer_unique_keys')).toBe(model.counts.size);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('lists missing fields with sorted titles, their origins, and truncation past 10 titles', () => {
    const titles = new Set(Array.from({ length: 12 }, (_, i) => `Rule ${String(i).padStart(2, '0')}`));
    const fields: RuleFieldSet = new Map([['x', { sources: new Set(['metadata', 'filter'] as const), titles }]]);
    const page = new FieldObserver(10, () => fields, () => 0).missing({});
    expect(page).toMatchObject({ total: 1, offset: 0, limit: 100, next_offset: null });
    expect(page.items[0]).toMatchObject({ field: 'x', rule_count: 12, sources: ['filter', 'metadata'], truncated: true });
    expect(page.items[0]?.rule_titles).toEqual([...titles].sort().slice(0, 10));
  });
});

describe('SchemaObserver', () => {
  const lines = (events: unknown[]): string[] => events.map((e) => JSON.stringify(e));
  const discovering: ObserveSettings = { fields: false, schemas: { signatures: [], discover: true } };

  it('counts per schema since reset, samples shapes, and bridges per-schema counters from lifetime counts', async () => {
    const metrics = createMetrics(new Registry());
    const observer = new SchemaObserver(true, () => 0);
    const stage = new ObserveStage({ metrics: metrics.handles, schemas: observer });
    const sysmon = { Channel: 'Microsoft-Windows-Sysmon/Operational', EventID: 1 };
    stage.merge(observeLines(discovering, [...lines([sysmon, sysmon, { x: 1, y: 2 }, {}]), 'plain text', '   ']));
    expect(observer.report()).toEqual({
      summary: { events_observed: 5, classified: 3, unknown: 2, ambiguous: 0, uptime_seconds: 0 },
      by_schema: [
        { schema: 'sysmon', count: 2 },
        { schema: 'generic_json', count: 1 },
      ],
      unknown_shapes: [{ keys: [], count: 2 }],
    });
    expect(observer.discoverySample()).toEqual([{ keys: ['x', 'y'], count: 1 }]);
    const counter = async (): Promise<number> =>
      (await metrics.registry.getSingleMetric('svc_events_by_schema_total')?.get())?.values.find((v) => v.labels['schema'] === 'sysmon')?.value ?? 0;
    stage.refreshMetrics();
    expect(await counter()).toBe(2);
    expect(observer.reset()).toEqual({ status: 'reset', previous_classified: 3, previous_unknown: 2 });
    stage.merge(observeLines(discovering, lines([sysmon])));
    stage.refreshMetrics();
    // Bridged from the lifetime count: one more event is one more, although the since-reset count is 1.
    expect(await counter()).toBe(3);
    expect(observer.report().by_schema).toEqual([{ schema: 'sysmon', count: 1 }]);
    expect(observer.discoverySample()).toEqual([]);
  });

  it('keeps at most 200 distinct shapes; known shapes keep counting', () => {
    const observer = new SchemaObserver(true, () => 0);
    const stage = new ObserveStage({ metrics: createMetrics(new Registry()).handles, schemas: observer });
    stage.merge(observeLines(discovering, lines(Array.from({ length: 250 }, (_, i) => ({ [`k${i}`]: 1 })))));
    stage.merge(observeLines(discovering, lines([{ k0: 1 }])));
    const sample = observer.discoverySample();
    expect(sample).toHaveLength(200);
    expect(sample[0]).toEqual({ keys: ['k0'], count: 2 });
  });
});
