import type { ConditionNode } from '../ast.js';

/** Distinct identifiers an expression names, in order of first appearance (`of` selectors name none). */
export function conditionIdentifiers(node: ConditionNode): string[] {
  const seen = new Set<string>();
  const visit = (n: ConditionNode): void => {
    switch (n.kind) {
      case 'id':
        seen.add(n.name);
        return;
      case 'of':
        return;
      case 'not':
        visit(n.arg);
        return;
      case 'and':
      case 'or':
        for (const a of n.args) visit(a);
        return;
      default: {
        const never: never = n;
        return never;
      }
    }
  };
  visit(node);
  return [...seen];
}
