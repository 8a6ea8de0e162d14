// A build from the compiled-rule cache compiles each rule's matchers only when the candidate index first
// selects it (CompileOptions.layout). Whatever order rules come up in, its full results (rules, identifiers
// and matched fields) must equal those of the compile that recorded the layout.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { compileRules, type Match } from '../../../sigma/engine/index.js';
import { event, rules } from './arbitraries.js';

const full = (ms: readonly Match[]): unknown[] => ms.map((m) => ({ rule: m.rule.index, selections: m.matchedSelections, fields: m.matchedFields }));

describe('matchers compiled on first use from a recorded layout', () => {
  test('give the results of the compile that recorded it, in any evaluation order', () => {
    fc.assert(
      fc.property(rules, fc.array(event, { minLength: 1, maxLength: 6 }), fc.boolean(), (rs, events, keywordFields) => {
        const options = keywordFields ? { keywordFields: ['CommandLine', 'nested.x'] } : {};
        const eager = compileRules(rs, { ...options, recordAutomata: true });
        expect(eager.errors.map(String)).toEqual([]);
        const lazy = compileRules(rs, { ...options, witnesses: eager.witnesses, automata: eager.automata, layout: eager.layout });
        expect(lazy.warnings).toEqual(eager.warnings);
        expect(lazy.automataBuilt).toBe(0);
        // Last event first: the lazy engine meets its rules in another order than the eager compile did.
        for (const e of [...events].reverse()) {
          expect(full(lazy.engine.evaluate(e))).toEqual(full(eager.engine.evaluate(e)));
          expect(full(lazy.engine.evaluateWithoutIndex(e))).toEqual(full(eager.engine.evaluateWithoutIndex(e)));
        }
      }),
      { numRuns: 150 },
    );
  });

  test('a layout recorded for another number of rules is refused rather than used', () => {
    const rs = fc.sample(rules, { numRuns: 1, seed: 7 })[0] ?? [];
    const recorded = compileRules(rs, { recordAutomata: true });
    expect(() => compileRules([...rs, ...rs], { witnesses: recorded.witnesses, automata: recorded.automata, layout: recorded.layout })).toThrow(/layout/);
  });
});
