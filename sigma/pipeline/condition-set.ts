// Combines a processing item's conditions: a list with `and`/`or` and optional negation, or named
// conditions under a boolean expression. No conditions always hold (pySigma ignores `_cond_not` then).
import { evaluateConditionExpression } from './condition-expression.js';
import type { CondExpr } from './condition-expression.js';
import type { ConditionSet } from './types.js';

export type ConditionCombination =
  | { readonly kind: 'list'; readonly op: 'and' | 'or'; readonly not: boolean }
  | { readonly kind: 'expr'; readonly expr: CondExpr };

export function buildConditionSet<P>(
  conditions: readonly { readonly id: string; readonly predicate: P }[],
  combination: ConditionCombination,
): ConditionSet<P> {
  if (conditions.length === 0) return { empty: true, holds: () => true };
  if (combination.kind === 'expr') {
    const byId = new Map(conditions.map((c) => [c.id, c.predicate]));
    const expr = combination.expr;
    return {
      empty: false,
      holds: (test) =>
        evaluateConditionExpression(expr, (name) => {
          const p = byId.get(name);
          return p !== undefined && test(p);
        }),
    };
  }
  const { op, not } = combination;
  const predicates = conditions.map((c) => c.predicate);
  return {
    empty: false,
    holds: (test) => (op === 'and' ? predicates.every(test) : predicates.some(test)) !== not,
  };
}
