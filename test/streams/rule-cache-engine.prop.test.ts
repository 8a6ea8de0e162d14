// An engine built from a stored compiled-rule cache entry (its candidate index and logsource router
// unpacked from the entry's shared memory, its matchers compiled on first use) must give, on any rules and
// events, exactly the results of an engine compiled from the rules: with and without the index, with and
// without an event logsource. An entry whose packed index or router does not add up is never used.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { buildRuleSet, type PreparedRules } from '../../sigma/index.js';
import { compileRules, type CompileResult, type EventLogsource, type Match } from '../../sigma/engine/index.js';
import { decodeCachedRules, encodeCachedRules } from '../../streams/detect/rule-cache.js';
import { event, rules } from '../sigma/engine/arbitraries.js';

const KEY = Buffer.alloc(32, 7);

const full = (ms: readonly Match[]): unknown[] => ms.map((m) => ({ rule: m.rule.index, selections: m.matchedSelections, fields: m.matchedFields }));

/** What a compile that records its layout prepared, as a rule-set build would hand it to the cache. */
function preparedOf(recorded: CompileResult, rs: PreparedRules['detections']): PreparedRules {
  return { documents: rs, detections: rs, correlations: [], warnings: [], witnesses: recorded.witnesses, automata: recorded.automata, layout: recorded.layout };
}

const eventLogsource: fc.Arbitrary<EventLogsource | undefined> = fc.constantFrom(
  undefined,
  { product: 'windows' },
  { product: 'linux', service: 'auditd' },
  { product: 'windows', category: 'process_creation' },
  { category: 'dns' },
);

describe('an engine built from a stored entry', () => {
  test('matches the engine compiled from the rules, event by event', () => {
    fc.assert(
      fc.property(rules, fc.array(fc.tuple(event, eventLogsource), { minLength: 1, maxLength: 6 }), (rs, events) => {
        const compiled = compileRules(rs);
        const recorded = compileRules(rs, { recordAutomata: true });
        expect(recorded.layout.index).toBeDefined();
        const prepared = decodeCachedRules(encodeCachedRules(KEY, preparedOf(recorded, rs)), KEY);
        if (prepared === undefined) throw new Error('the entry did not decode');
        expect(prepared.witnesses).toEqual([]);
        const stored = buildRuleSet([], { prepared });
        expect(stored.errors).toEqual([]);
        expect(stored.automataBuilt).toBe(0);
        for (const [e, logsource] of events) {
          const ctx = logsource === undefined ? {} : { logsource };
          expect(full(stored.engine.evaluate(e, ctx))).toEqual(full(compiled.engine.evaluate(e, ctx)));
          expect(full(stored.engine.evaluateWithoutIndex(e, ctx))).toEqual(full(compiled.engine.evaluateWithoutIndex(e, ctx)));
        }
        expect(stored.engine.stats).toEqual(compiled.engine.stats);
      }),
      { numRuns: 120 },
    );
  });

  test('refuses a packed index or router whose parts do not add up', () => {
    // Rules whose index has fields and automata of its own, so that every part below is there to break.
    const [rs, recorded] = fc
      .sample(rules, { numRuns: 100, seed: 11 })
      .map((r) => [r, compileRules(r, { recordAutomata: true })] as const)
      .find(([r, c]) => (c.layout.index?.texts.length ?? 0) >= 2 && c.automata.length > (c.layout.automataAt[r.length] ?? Infinity)) ?? [[], compileRules([])];
    const { index, router } = recorded.layout;
    if (index === undefined || router === undefined || rs.length === 0) throw new Error('no rules with a packed index');
    const ints = index.ints;
    const broken = [
      { ...index, ints: ints.subarray(0, ints.length - 1) },
      { ...index, ints: Int32Array.from([...ints, 0]) },
      { ...index, texts: [...index.texts, 'extra'] },
      { ...index, texts: index.texts.slice(1) },
      { ...index, numbers: [...index.numbers, 1] },
      // A rule count the layout's rules do not fill, and a keyword automaton the entry does not hold (the
      // fields' automata then come out one short).
      { ...index, ints: Int32Array.from(ints, (v, i) => (i === 0 ? v + 64 : v)) },
      { ...index, ints: Int32Array.from(ints, (v, i) => (i === 4 ? 1 - v : v)) },
    ];
    for (const bad of broken) {
      expect(() => compileRules(rs, { automata: recorded.automata, layout: { ...recorded.layout, index: bad } })).toThrow();
    }
    const groups = router.groups.length;
    for (const groupOf of [Int32Array.of(...router.groupOf, 0), Int32Array.from(router.groupOf, () => groups)]) {
      expect(() => compileRules(rs, { automata: recorded.automata, layout: { ...recorded.layout, router: { ...router, groupOf } } })).toThrow();
    }
  });
});
