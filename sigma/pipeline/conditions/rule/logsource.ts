// The rule's logsource has every attribute the condition sets, with the same value. A correlation
// matches when any rule it references does.
import Type from 'typebox';
import type { Static } from 'typebox';
import type { Logsource } from '../../../ast.js';
import type { AnyRule, RulePredicate, RunState } from '../../types.js';

export const type = 'logsource';

export const params = Type.Object(
  { category: Type.Optional(Type.String()), product: Type.Optional(Type.String()), service: Type.Optional(Type.String()) },
  { additionalProperties: false },
);

export function create(p: Static<typeof params>): RulePredicate {
  const within = (ls: Logsource): boolean =>
    (p.category === undefined || ls.category === p.category) &&
    (p.product === undefined || ls.product === p.product) &&
    (p.service === undefined || ls.service === p.service);
  const holds = (doc: AnyRule, run: RunState, seen: ReadonlySet<AnyRule>): boolean => {
    if (doc.kind === 'detection') return within(doc.logsource);
    const next = new Set(seen).add(doc);
    return doc.rules.some((ref) => {
      const target = run.resolveRule(ref);
      return target !== undefined && !seen.has(target) && holds(target, run, next);
    });
  };
  return (doc, run) => holds(doc, run, new Set());
}
