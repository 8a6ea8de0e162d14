import type { ConditionNode } from '../ast.js';
import { SigmaError } from '../errors.js';

/**
 * Reference evaluator (tests and differential checks, not the hot path): plain boolean logic over
 * `truth(identifier)`. Selectors must have been expanded by `resolveSelectors` first.
 */
export function evaluateCondition(node: ConditionNode, truth: (id: string) => boolean): boolean {
  switch (node.kind) {
    case 'id':
      return truth(node.name);
    case 'not':
      return !evaluateCondition(node.arg, truth);
    case 'and':
      return node.args.every((a) => evaluateCondition(a, truth));
    case 'or':
      return node.args.some((a) => evaluateCondition(a, truth));
    case 'of':
      throw new SigmaError(
        'condition',
        'UnresolvedSelector',
        `selector '${node.quantifier} of ${node.target}' must be expanded with resolveSelectors before evaluation`,
      );
    default: {
      const never: never = node;
      return never;
    }
  }
}
