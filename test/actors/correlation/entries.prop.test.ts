import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Entries, EntryLists } from '../../../actors/correlation/entries.js';
import { aggregateOf, append, dropOldest, firstAtOrAfter, insertionPoint, listsOf, NO_ENTRIES, sizeOfEntries, spliced } from '../../../actors/correlation/entries.js';
import type { HitValue } from '../../../actors/correlation/index.js';
import type { CompiledCorrelation } from '../../../sigma/correlation/index.js';
import { orderedPrefix, percentileOf, popcount } from '../../../sigma/correlation/index.js';
import { arbScenario, buildScenario, TYPES } from './scenario.js';

/** The aggregate recomputed from the window's lists, as the reducer did before it kept it up to date. */
function naive(def: CompiledCorrelation, l: EntryLists): number | undefined {
  const nums = l.values.filter((v): v is number => typeof v === 'number');
  let sum = 0;
  for (const v of nums) sum += v;
  switch (def.aggregate) {
    case 'count':
      return l.ts.length;
    case 'distinct':
      return new Set(l.values.filter((v) => typeof v === 'string')).size;
    case 'rules':
      return popcount(l.rules.reduce((a, b) => a | b, 0));
    case 'ordered':
      return orderedPrefix(l.ts, l.rules, def.refs.length);
    case 'sum':
      return sum;
    case 'avg':
      return nums.length === 0 ? undefined : sum / nums.length;
    case 'percentile':
      return percentileOf(nums.sort((a, b) => a - b), def.percentile);
    default:
      return undefined;
  }
}

type Step =
  | { readonly kind: 'append'; readonly gap: number; readonly rules: number; readonly value: HitValue }
  | { readonly kind: 'insert'; readonly back: number; readonly rules: number; readonly value: HitValue; readonly drop: number; readonly anchor: number }
  | { readonly kind: 'drop'; readonly count: number }
  | { readonly kind: 'fork'; readonly back: number };

// Floats, integers near 2^53 and strings, so inexact sums and shared distinct values are exercised.
const value: fc.Arbitrary<HitValue> = fc.oneof(
  fc.integer({ min: -20, max: 40 }),
  fc.constantFrom(0.1, 0.2, -0.3, 1e16, -1e16, 2 ** 53 - 1, null),
  fc.constantFrom('x', 'y', 'z'),
);
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('append' as const), gap: fc.constantFrom(0, 0, 1, 5), rules: fc.integer({ min: 1, max: 7 }), value }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('insert' as const),
      back: fc.nat(6),
      rules: fc.integer({ min: 1, max: 7 }),
      value,
      drop: fc.nat(2),
      anchor: fc.nat(1),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('drop' as const), count: fc.nat(4) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('fork' as const), back: fc.nat(8) }) },
);

function apply(def: CompiledCorrelation, w: Entries, s: Step, clock: { t: number }): Entries {
  switch (s.kind) {
    case 'append':
      clock.t += s.gap;
      return append(def, w, clock.t, s.rules, s.value);
    case 'insert': {
      const l = listsOf(w);
      const pos = Math.max(0, l.ts.length - s.back);
      const at = pos < l.ts.length ? (l.ts[pos] as number) - 1 : clock.t;
      const before = pos > 0 ? (l.ts[pos - 1] as number) : -Infinity;
      if (at < before) return w;
      const drop = Math.min(s.drop, l.ts.length + 1 - s.anchor);
      return spliced(def, w, pos, at, s.rules, s.value, Math.max(0, drop), s.anchor);
    }
    case 'drop':
      return dropOldest(def, w, s.count);
    case 'fork':
      return w;
  }
}

describe('window entries', () => {
  it('keep every type’s aggregate equal to recomputing it, and older windows as they were', () => {
    const arb = fc.constantFrom(...TYPES).chain((type) => fc.tuple(fc.constant(type), arbScenario(type), fc.array(step, { maxLength: 60, size: 'max' })));
    fc.assert(
      fc.property(arb, ([type, scenario, steps]) => {
        const { def } = buildScenario({ ...scenario, steps: [] }, type);
        const history: { w: Entries; lists: string }[] = [{ w: NO_ENTRIES, lists: JSON.stringify(listsOf(NO_ENTRIES)) }];
        const clock = { t: 1_000 };
        let w: Entries = NO_ENTRIES;
        for (const s of steps) {
          if (s.kind === 'fork') w = (history[Math.max(0, history.length - 1 - s.back)] as { w: Entries }).w;
          w = apply(def, w, s, clock);
          const lists = listsOf(w);
          expect(sizeOfEntries(w)).toBe(lists.ts.length);
          expect(aggregateOf(def, w).value).toBe(naive(def, lists));
          history.push({ w, lists: JSON.stringify(lists) });
        }
        for (const h of history) expect(JSON.stringify(listsOf(h.w))).toBe(h.lists);
        // Asked again newest first, older windows move what a log keeps for the window last asked backwards.
        for (const h of [...history].reverse()) expect(aggregateOf(def, h.w).value).toBe(naive(def, listsOf(h.w)));
      }),
      { numRuns: 400 },
    );
  });

  it('find a time’s first entry and a new entry’s place as a scan of the window does', () => {
    const arb = fc.record({
      gaps: fc.array(fc.constantFrom(0, 0, 1, 2, 7), { minLength: 1, maxLength: 400 }),
      drop: fc.nat(400),
      probes: fc.array(fc.integer({ min: -5, max: 1_500 }), { maxLength: 20 }),
    });
    fc.assert(
      fc.property(arbScenario('event_count'), arb, (scenario, { gaps, drop, probes }) => {
        const { def } = buildScenario({ ...scenario, steps: [] }, 'event_count');
        let w: Entries = NO_ENTRIES;
        let t = 0;
        for (const gap of gaps) w = append(def, w, (t += gap), 0, null);
        w = dropOldest(def, w, Math.min(drop, gaps.length - 1));
        const { ts } = listsOf(w);
        for (const p of [...probes, ts[0] as number, ts[ts.length - 1] as number]) {
          const first = ts.findIndex((x) => x >= p);
          const after = ts.findIndex((x) => x > p);
          expect(firstAtOrAfter(w, p)).toBe(first < 0 ? ts.length : first);
          expect(insertionPoint(w, p)).toBe(after < 0 ? ts.length : after);
        }
      }),
      { numRuns: 300 },
    );
  });
});
