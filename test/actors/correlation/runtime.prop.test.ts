import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CorrelationRuntime } from '../../../src/actors/correlation/index.js';
import type { CorrelationResult } from '../../../src/protocol/correlation-result.js';
import type { CorrelationType } from '../../../src/sigma/ast.js';
import type { CompiledCorrelation } from '../../../src/sigma/correlation/index.js';
import { compileCorrelations, encodeGroupKey } from '../../../src/sigma/correlation/index.js';
import { correlationRule, detections } from '../../sigma/correlation/rule-fixtures.js';
import type { RefFiring } from './reference-model.js';
import { RefCorrelation } from './reference-model.js';
import { arbScenario, type Op, type Scenario } from './scenario.js';

// Bucket-aligned, so tumbling windows fall the same in the reference (which counts from 0).
const BASE = 1_699_999_980_000;
const TYPES: readonly CorrelationType[] = [
  'event_count',
  'value_count',
  'temporal',
  'temporal_ordered',
  'value_sum',
  'value_avg',
  'value_percentile',
  'value_median',
];

interface Model {
  readonly ref: RefCorrelation;
  seq: number;
}
interface Real {
  readonly rt: CorrelationRuntime;
}

function eventOf(op: Extract<Op, { kind: 'hit' }>, seq: number): Record<string, unknown> {
  return { ms: BASE + op.at, ...(op.host !== null ? { host: op.host } : {}), ...(op.value !== undefined ? { v: op.value } : {}), id: `e${seq}` };
}

function matchesOf(mask: number): { name: string }[] {
  return [0, 1, 2].filter((b) => ((mask >> b) & 1) === 1).map((b) => ({ name: `r${b}` }));
}

function expected(def: CompiledCorrelation, f: RefFiring | undefined, host: string | null): unknown[] {
  if (f === undefined || !def.emits) return [];
  return [
    {
      group_key: host === null ? [] : [['host', host]],
      aggregated_value: f.value,
      ...(def.eventMode === 'refs' ? { event_refs: f.kept.map((k) => ({ timestamp: Math.floor((BASE + k.ts) / 1000), ...(k.id !== undefined ? { id: k.id } : {}) })) } : {}),
    },
  ];
}

function observed(results: readonly CorrelationResult[]): unknown[] {
  return results.map((r) => ({
    group_key: r.group_key,
    aggregated_value: r.aggregated_value,
    ...(r.event_refs !== undefined ? { event_refs: r.event_refs } : {}),
  }));
}

/** Hit values as the runtime stores them, so the reference sees the same input. */
function hitValue(def: CompiledCorrelation, v: string | number | null | undefined): string | number | null {
  if (def.aggregate === 'distinct') return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : null;
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return null;
}

function checkGroups(def: CompiledCorrelation, m: Model, r: Real): void {
  expect(r.rt.stateEntries).toBe(m.ref.groups.size);
  const want = [...m.ref.groups.values()]
    .map((g) => {
      const { value } = g.evaluate();
      return { key: g.key, entries: g.window().length, got: value };
    })
    .sort((a, b) => (a.key < b.key ? -1 : 1));
  const have = r.rt
    .snapshot()
    .map((g) => ({ key: encodeGroupKey(g.key), entries: g.ts.length, got: r.rt.groupSnapshots().find((s) => s.group_key_display === `host=${g.key[0] ?? '<none>'}`)?.got }))
    .sort((a, b) => (a.key < b.key ? -1 : 1));
  expect(have.map((h) => [h.key, h.entries])).toEqual(want.map((w) => [w.key, w.entries]));
  have.forEach((h, i) => {
    const w = want[i]?.got;
    if (w === undefined) expect(h.got).toBeUndefined();
    else expect(h.got).toBeCloseTo(w, 6);
  });
  void def;
}

class HitCommand implements fc.Command<Model, Real> {
  constructor(
    readonly def: CompiledCorrelation,
    readonly op: Extract<Op, { kind: 'hit' }>,
  ) {}
  check(): boolean {
    return true;
  }
  run(m: Model, r: Real): void {
    const seq = m.seq++;
    const results = r.rt.onEvent(matchesOf(this.op.rules), eventOf(this.op, seq), 0);
    const firing = m.ref.hit(encodeGroupKey([this.op.host]), this.op.at, this.op.rules, hitValue(this.def, this.op.value), `e${seq}`);
    const want = expected(this.def, firing, this.op.host);
    const have = observed(results);
    expect(have.length).toBe(want.length);
    if (want.length === 1) {
      const [h, w] = [have[0] as { aggregated_value: number }, want[0] as { aggregated_value: number }];
      expect(h.aggregated_value).toBeCloseTo(w.aggregated_value, 6);
      expect({ ...h, aggregated_value: 0 }).toEqual({ ...w, aggregated_value: 0 });
    }
    checkGroups(this.def, m, r);
  }
  toString(): string {
    return `hit(${JSON.stringify(this.op)})`;
  }
}

class TickCommand implements fc.Command<Model, Real> {
  constructor(
    readonly def: CompiledCorrelation,
    readonly now: number,
  ) {}
  check(): boolean {
    return true;
  }
  run(m: Model, r: Real): void {
    r.rt.tick(BASE + this.now);
    m.ref.tick(this.now);
    checkGroups(this.def, m, r);
  }
  toString(): string {
    return `tick(${this.now})`;
  }
}

export function buildScenario(s: Scenario, type: CorrelationType) {
  const rule = correlationRule({
    type,
    rules: ['r0', 'r1', 'r2'],
    groupBy: ['host'],
    timespanMs: s.timespanMs,
    condition: {
      ops: s.condition,
      ...(type.startsWith('value_') ? { field: ['v'] } : {}),
      ...(s.expression !== undefined ? { expression: s.expression } : {}),
    },
    percentile: s.percentile,
    options: {
      window: s.window,
      gap: `${s.gapMs}ms`,
      action: s.action,
      ...(s.suppressMs > 0 ? { suppress: `${s.suppressMs}ms` } : {}),
      ...(s.maxGroupEntries > 0 ? { max_group_entries: s.maxGroupEntries } : {}),
      correlation_event_mode: s.eventMode,
      max_correlation_events: s.maxEvents,
    },
    generate: true,
  });
  const set = compileCorrelations([rule], detections(3));
  expect(set.errors).toEqual([]);
  const def = set.correlations[0] as CompiledCorrelation;
  const rt = new CorrelationRuntime(set.correlations, { timestampFields: ['ms'], maxStateEntries: s.cap });
  return { rt, def };
}

describe.each(TYPES)('%s runtime against the naive reference', (type) => {
  it('produces the same results and group state on random hit and tick sequences', () => {
    fc.assert(
      fc.property(arbScenario(type), (s) => {
        const { rt, def } = buildScenario(s, type);
        const cmds = s.steps.map((op) => (op.kind === 'hit' ? new HitCommand(def, op) : new TickCommand(def, op.now)));
        fc.modelRun(() => ({ model: { ref: new RefCorrelation(def, s.cap), seq: 0 }, real: { rt } }), cmds);
      }),
      { numRuns: 150 },
    );
  });
});
