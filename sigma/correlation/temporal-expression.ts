import type { ConditionNode } from '../ast.js';
import { selectorMatches } from '../condition/index.js';
import { SigmaError } from '../errors.js';

/** Whether a set of fired rules (bit i = the i-th referenced rule) satisfies an extended condition. */
export type RuleSetTest = (fired: number) => boolean;

/**
 * Compile a parsed extended temporal condition. Identifiers name referenced rules (`bitOf` maps a
 * name to its bit); `1 of x*` / `all of them` select rules by name pattern.
 */
export function compileRuleSetTest(
  node: ConditionNode,
  names: readonly string[],
  bitOf: (name: string) => number | undefined,
): RuleSetTest {
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
      const inner = compileRuleSetTest(node.arg, names, bitOf);
      return (fired) => !inner(fired);
    }
    case 'and':
    case 'or': {
      const args = node.args.map((a) => compileRuleSetTest(a, names, bitOf));
      return node.kind === 'and' ? (f) => args.every((t) => t(f)) : (f) => args.some((t) => t(f));
    }
    case 'of': {
      let mask = 0;
      for (const name of names) {
        const bit = bitOf(name);
        if (bit !== undefined && selectorMatches(node.target, name)) mask |= 1 << bit;
      }
      if (mask === 0) {
        throw new SigmaError('correlation', 'empty_condition_selector', `'${node.target}' selects no referenced rule`);
      }
      return node.quantifier === 'all' ? (f) => (f & mask) === mask : (f) => (f & mask) !== 0;
    }
    default: {
      const never: never = node;
      return never;
    }
  }
}
