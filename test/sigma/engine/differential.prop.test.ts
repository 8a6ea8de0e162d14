// STYLE rule 16: the candidate index and every optimised matcher against the naive oracle. For generated
// rule sets and events, evaluate == evaluateWithoutIndex == referenceEvaluate (rules and the identifiers
// reported as matched); logsource routing removes exactly the conflicting rules.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type { DetectionRule, Logsource } from '../../../sigma/ast.js';
import { compileRules, type EventLogsource, type Match } from '../../../sigma/engine/index.js';
import { event, logsource, rules } from './arbitraries.js';
import { referenceEvaluate } from './reference-evaluator.js';

const summary = (ms: readonly Match[]): { rule: number; matchedSelections: readonly string[] }[] =>
  ms.map((m) => ({ rule: m.rule.index, matchedSelections: m.matchedSelections }));

function conflicts(rule: Logsource, ev: EventLogsource): boolean {
  const differ = (a: string | undefined, b: string | undefined): boolean =>
    a !== undefined && b !== undefined && a.toLowerCase() !== b.toLowerCase();
  return differ(rule.product, ev.product) || differ(rule.category, ev.category) || differ(rule.service, ev.service);
}

describe('engine against the reference evaluator', () => {
  test('evaluate, evaluateWithoutIndex and the naive reference agree on generated rules and events', () => {
    fc.assert(
      fc.property(rules, fc.array(event, { minLength: 1, maxLength: 6 }), (rs: DetectionRule[], events) => {
        const { engine, errors } = compileRules(rs);
        expect(errors.map(String)).toEqual([]);
        for (const e of events) {
          const expected = referenceEvaluate(rs, e);
          expect(summary(engine.evaluateWithoutIndex(e))).toEqual(expected);
          expect(summary(engine.evaluate(e))).toEqual(expected);
        }
      }),
      { numRuns: 400 },
    );
  });

  test('results do not depend on what the probe caches remember of earlier events', () => {
    // Events drawn again and again from a small pool, so field values repeat and the caches replay them.
    fc.assert(
      fc.property(rules, fc.array(event, { minLength: 1, maxLength: 4 }), fc.array(fc.nat(), { minLength: 8, maxLength: 40 }), (rs, pool, order) => {
        const { engine } = compileRules(rs);
        for (const i of order) {
          const e = pool[i % pool.length] as Record<string, unknown>;
          expect(summary(engine.evaluate(structuredClone(e)))).toEqual(summary(engine.evaluateWithoutIndex(e)));
        }
      }),
      { numRuns: 300 },
    );
  });

  test('logsource routing only removes rules whose logsource conflicts and counts them', () => {
    const eventLogsource = logsource.map((l): EventLogsource => ({ ...l }));
    fc.assert(
      fc.property(rules, event, eventLogsource, (rs, e, ls) => {
        const { engine } = compileRules(rs);
        const all = summary(engine.evaluate(e));
        const before = engine.stats.rulesPrunedByLogsource;
        const withoutLs = engine.stats.eventsWithoutLogsource;
        const routed = summary(engine.evaluate(e, { logsource: ls }));
        const conflicting = rs.filter((r) => conflicts(r.logsource, ls)).length;
        expect(routed).toEqual(all.filter((m) => !conflicts((rs[m.rule] as DetectionRule).logsource, ls)));
        expect(summary(engine.evaluateWithoutIndex(e, { logsource: ls }))).toEqual(routed);
        const hasAttribute = ls.product !== undefined || ls.category !== undefined || ls.service !== undefined;
        expect(engine.stats.rulesPrunedByLogsource - before).toBe(hasAttribute ? 2 * conflicting : 0);
        expect(engine.stats.eventsWithoutLogsource - withoutLs).toBe(hasAttribute ? 0 : 2);
      }),
      { numRuns: 200 },
    );
  });
});
