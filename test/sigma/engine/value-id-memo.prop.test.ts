// Field items remember results by the id the candidate index's probe cache gives a field's value
// (FieldItem.byValueId). A long-lived engine, whose items have seen many earlier values (more than a
// memo's ways, so ways are overwritten), must answer every event exactly as an engine that sees it first:
// same rules, identifiers and matched fields. Ids exist only for fields the index probes with a cache, so
// each rule set gets a rule per field that files it under a substring.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type { DetectionRule } from '../../../sigma/ast.js';
import { compileRules, type Match } from '../../../sigma/engine/index.js';
import { event, rules } from './arbitraries.js';

const PROBED = ['A', 'B', 'c.d', 'T'];

/** `field|contains: a`: the index scans the field, through its probe cache. */
function probingRule(field: string, index: number): DetectionRule {
  const values = [{ kind: 'string' as const, parts: [{ t: 'any' as const }, { t: 'lit' as const, s: 'a' }, { t: 'any' as const }], cased: false }];
  const sel = { kind: 'detection' as const, linking: 'and' as const, children: [{ kind: 'item' as const, field, modifiers: ['contains'], original: [], values, linking: 'or' as const, negated: false }] };
  return {
    kind: 'detection', file: 'probing.yml', doc: index, title: `probe ${field}`, id: `probe-${field}`, tags: [], custom: {}, logsource: {},
    detections: new Map([['sel', sel]]), condition: ['sel'],
  };
}

const full = (ms: readonly Match[]): unknown[] =>
  ms.map((m) => ({ rule: m.rule.index, matchedSelections: m.matchedSelections, matchedFields: m.matchedFields }));

describe('field item results remembered by value id', () => {
  test('a long-lived engine answers each event as a fresh engine does', () => {
    fc.assert(
      fc.property(
        rules,
        fc.array(event, { minLength: 20, maxLength: 50 }),
        fc.array(fc.nat(), { minLength: 40, maxLength: 100 }),
        (generated, pool, order) => {
          const rs = [...generated, ...PROBED.map((f, i) => probingRule(f, generated.length + i))];
          const { engine } = compileRules(rs);
          const fresh = pool.map((e) => full(compileRules(rs).engine.evaluate(e)));
          for (const i of order) {
            const k = i % pool.length;
            // A copy: equal texts in distinct strings, as from a new parse.
            expect(full(engine.evaluate(structuredClone(pool[k] as Record<string, unknown>)))).toEqual(fresh[k]);
          }
        },
      ),
      { numRuns: 100 },
    );
  });
});
