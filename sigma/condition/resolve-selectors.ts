import type { ConditionNode } from '../ast.js';
import { SigmaError } from '../errors.js';
import { selectorMatches } from './match-selector.js';

const EMPTY_SET: ReadonlySet<string> = new Set();

/** Builds an `and`/`or` of the surviving operands: flattened, collapsed when one is left, absent when none. */
function combine(kind: 'and' | 'or', operands: readonly (ConditionNode | null)[]): ConditionNode | null {
  const args: ConditionNode[] = [];
  for (const a of operands) {
    if (a === null) continue;
    if (a.kind === kind) args.push(...a.args);
    else args.push(a);
  }
  if (args.length === 0) return null;
  if (args.length === 1) return args[0] as ConditionNode;
  return { kind, args };
}

/**
 * Expands `1 of`/`all of` selectors into `or`/`and` of identifiers and prunes absent nodes the way
 * pySigma does (sigma-semantics §4.4): an empty expansion is absent, `not` of absent is absent,
 * `and`/`or` drop absent operands, and a tree with nothing left is `null` (the rule never matches).
 * Identifiers in `absent` (e.g. selections a pipeline emptied) count as absent wherever they appear.
 * Throws `SigmaError` (`condition`/`UnknownIdentifier`) for a reference to an undefined identifier.
 */
export function resolveSelectors(
  node: ConditionNode,
  identifiers: readonly string[],
  absent: ReadonlySet<string> = EMPTY_SET,
): ConditionNode | null {
  const known = new Set(identifiers);
  const resolve = (n: ConditionNode): ConditionNode | null => {
    switch (n.kind) {
      case 'id':
        if (absent.has(n.name)) return null;
        if (!known.has(n.name)) {
          throw new SigmaError('condition', 'UnknownIdentifier', `condition references undefined identifier '${n.name}'`);
        }
        return n;
      case 'of': {
        const selected: ConditionNode[] = [];
        for (const name of identifiers) {
          if (!absent.has(name) && selectorMatches(n.target, name)) selected.push({ kind: 'id', name });
        }
        return combine(n.quantifier === 'any' ? 'or' : 'and', selected);
      }
      case 'not': {
        const arg = resolve(n.arg);
        return arg === null ? null : { kind: 'not', arg };
      }
      case 'and':
      case 'or':
        return combine(n.kind, n.args.map(resolve));
      default: {
        const never: never = n;
        return never;
      }
    }
  };
  return resolve(node);
}
