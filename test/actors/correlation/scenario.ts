import fc from 'fast-check';
import { CORRELATION_TYPES } from '../../../protocol/correlation-result.js';
import { expect } from 'vitest';
import type { CorrelationRuntimeOptions } from '../../../actors/correlation/index.js';
import { CorrelationRuntime } from '../../../actors/correlation/index.js';
import type { ConditionOp, CorrelationType } from '../../../sigma/ast.js';
import type {
  CompiledCorrelation,
  CorrelationAction,
  CorrelationEventMode,
  WindowMode,
} from '../../../sigma/correlation/index.js';
import { compileCorrelations } from '../../../sigma/correlation/index.js';
import { correlationRule, detections } from '../../sigma/correlation/rule-fixtures.js';


export type Op =
  | {
      readonly kind: 'hit';
      /** Event time in ms after the scenario's base. */
      readonly at: number;
      readonly host: string | null;
      readonly rules: number;
      readonly value: string | number | null | undefined;
    }
  | { readonly kind: 'tick'; readonly now: number };

type Ops = Partial<Record<ConditionOp, number>>;

/** Settings of one random correlation plus the inputs it gets. */
export interface Scenario {
  readonly timespanMs: number;
  readonly window: WindowMode;
  readonly gapMs: number;
  readonly action: CorrelationAction;
  readonly suppressMs: number;
  readonly maxGroupEntries: number;
  readonly cap: number;
  readonly eventMode: CorrelationEventMode;
  readonly maxEvents: number;
  readonly percentile: number;
  readonly condition: Ops;
  readonly expression: string | undefined;
  readonly steps: readonly Op[];
}

const small = fc.integer({ min: 0, max: 4 });
const wide = fc.integer({ min: -20, max: 60 });

function arbOps(k: fc.Arbitrary<number>): fc.Arbitrary<Ops> {
  return fc.oneof(
    k.map((n) => ({ gte: n })),
    k.map((n) => ({ gt: n })),
    k.map((n) => ({ lt: n })),
    k.map((n) => ({ eq: n })),
    k.map((n) => ({ neq: n })),
    fc.tuple(k, fc.nat(10)).map(([a, b]) => ({ gte: a, lte: a + b })),
  );
}

const rawStep: fc.Arbitrary<RawStep> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('hit' as const),
      delta: fc.integer({ min: -24, max: 18 }).map((d) => d * 500),
      host: fc.constantFrom('a', 'b', 'c', null),
      rules: fc.integer({ min: 1, max: 7 }),
      value: fc.oneof(fc.constantFrom('x', 'y', 'z', '7', 'n/a', null, undefined), fc.integer({ min: -10, max: 30 })),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('tick' as const), delta: fc.integer({ min: 0, max: 40 }).map((d) => d * 500) }) },
);

type RawStep =
  | { kind: 'hit'; delta: number; host: string | null; rules: number; value: string | number | null | undefined }
  | { kind: 'tick'; delta: number };

/** Turn relative steps into absolute times around a cursor that mostly moves forward. */
function place(raw: readonly RawStep[]): Op[] {
  let cursor = 60_000;
  return raw.map((s): Op => {
    if (s.kind === 'tick') return { kind: 'tick', now: cursor + s.delta };
    const at = Math.max(0, cursor + s.delta);
    cursor = Math.max(cursor, at);
    return { kind: 'hit', at, host: s.host, rules: s.rules, value: s.value };
  });
}

export function arbScenario(type: CorrelationType): fc.Arbitrary<Scenario> {
  const numeric = type === 'value_sum' || type === 'value_avg' || type === 'value_percentile' || type === 'value_median';
  const temporal = type === 'temporal' || type === 'temporal_ordered';
  return fc.record({
    timespanMs: fc.constantFrom(10_000, 30_000),
    window: fc.constantFrom<WindowMode>('sliding', 'sliding', 'tumbling', 'session'),
    gapMs: fc.constantFrom(3_000, 8_000),
    action: fc.constantFrom<CorrelationAction>('alert', 'reset'),
    suppressMs: fc.constantFrom(0, 0, 4_000, 15_000),
    maxGroupEntries: fc.constantFrom(0, 0, 1, 2, 3),
    cap: fc.constantFrom(1_000, 2, 3),
    eventMode: fc.constantFrom<CorrelationEventMode>('none', 'refs'),
    maxEvents: fc.constantFrom(1, 3),
    percentile: fc.constantFrom(0, 25, 50, 90, 100),
    condition: temporal ? fc.oneof(fc.constant({}), arbOps(small)) : arbOps(numeric ? wide : small),
    expression: temporal
      ? fc.option(fc.constantFrom('r0 and (r1 or r2)', 'r1 and not r0', 'not r2 or (r0 and r1)'), { nil: undefined })
      : fc.constant(undefined),
    steps: fc.array(rawStep, { maxLength: 40, size: 'max' }).map(place),
  });
}

// Bucket-aligned, so tumbling windows fall the same in the reference (which counts from 0).
export const BASE = 1_699_999_980_000;
export const TYPES: readonly CorrelationType[] = CORRELATION_TYPES;

export function eventOf(op: Extract<Op, { kind: 'hit' }>, seq: number): Record<string, unknown> {
  return { ms: BASE + op.at, ...(op.host !== null ? { host: op.host } : {}), ...(op.value !== undefined ? { v: op.value } : {}), id: `e${seq}` };
}

export function matchesOf(mask: number): { name: string }[] {
  return [0, 1, 2].filter((b) => ((mask >> b) & 1) === 1).map((b) => ({ name: `r${b}` }));
}

/** Compile a scenario's correlation (fresh definitions each call) and a runtime over it. */
export function buildScenario(
  s: Scenario,
  type: CorrelationType,
  extra: CorrelationRuntimeOptions = {},
): { rt: CorrelationRuntime; def: CompiledCorrelation } {
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
  const rt = new CorrelationRuntime(set.correlations, { timestampFields: ['ms'], maxStateEntries: s.cap, ...extra });
  return { rt, def };
}

