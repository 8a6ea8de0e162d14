import type { ConditionNode } from '../ast.js';
import { SigmaError } from '../errors.js';

/** Binding strength: an operand binding looser than its parent's operator gets parentheses. */
function strength(node: ConditionNode): number {
  switch (node.kind) {
    case 'or':
      return node.args.length === 1 ? strength(node.args[0] as ConditionNode) : 1;
    case 'and':
      return node.args.length === 1 ? strength(node.args[0] as ConditionNode) : 2;
    case 'not':
      return 3;
    case 'of':
    case 'id':
      return 4;
    default: {
      const never: never = node;
      return never;
    }
  }
}

/** Operands of the same kind as their parent are parenthesised too, so the printed tree keeps its shape. */
function operand(node: ConditionNode, parentStrength: number): string {
  const s = printCondition(node);
  return strength(node) <= parentStrength ? `(${s})` : s;
}

/**
 * Canonical text of a condition tree: single spaces, minimal parentheses, `1 of` for the `any`
 * quantifier. `parseCondition(printCondition(n))` gives `n` back for every flattened tree (no `and`
 * directly inside `and`, no `or` inside `or`, at least two operands each).
 */
export function printCondition(node: ConditionNode): string {
  switch (node.kind) {
    case 'id':
      return node.name;
    case 'of':
      return `${node.quantifier === 'any' ? '1' : 'all'} of ${node.target}`;
    case 'not':
      return `not ${operand(node.arg, 2)}`;
    case 'and':
    case 'or': {
      const [only] = node.args;
      if (only === undefined) {
        throw new SigmaError('condition', 'InvalidCondition', `cannot print an empty '${node.kind}'`);
      }
      if (node.args.length === 1) return printCondition(only);
      const own = node.kind === 'or' ? 1 : 2;
      return node.args.map((a) => operand(a, own)).join(` ${node.kind} `);
    }
    default: {
      const never: never = node;
      return never;
    }
  }
}
