import type { ConditionNode } from '../ast.js';
import { SigmaError } from '../errors.js';

/** Whether a set of fired rules (bit i = the i-th referenced rule) satisfies an extended condition. */
export type RuleSetTest = (fired: number) => boolean;

/**
 * Compile a parsed extended temporal condition (`and`, `or`, `not` over referenced rule names, as the
 * loader checked it). `bitOf` maps a name to its bit.
 */
export function compileRuleSetTest(node: ConditionNode, bitOf: (name: string) => number | undefined): RuleSetTest {
  switch (node.kind) {
    case 'id': {
      const bit = bitOf(node.name);
      if (bit === undefined) {
        throw new SigmaError('correlation', 'unknown_condition_rule', `condition names '${node.name}', which is not in 'rules'`);
      }
      const m = 1 << bit;
      return (fired) => (fired & m) !== 0;
    }
    case 'not': {
      const inner = compileRuleSetTest(node.arg, bitOf);
      return (fired) => !inner(fired);
    }
    case 'and':
    case 'or': {
      const args = node.args.map((a) => compileRuleSetTest(a, bitOf));
      return node.kind === 'and' ? (f) => args.every((t) => t(f)) : (f) => args.some((t) => t(f));
    }
    default:
      // `1 of x*` / `all of them` never get here: the loader's temporal grammar (sigma/rule/temporal-expression.ts) has no `of`.
      throw new SigmaError('correlation', 'invalid_temporal_condition', `'${node.kind}' is not part of a temporal condition`);
  }
}
