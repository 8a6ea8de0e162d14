// Assembles one detection item (§2.3): modifiers resolved and checked, every value run through the chain,
// list modifiers setting linking (`all`) and negation (`neq`).
import type { DetectionItem, Scalar, SourceLoc } from '../ast.js';
import { SigmaError, type SigmaWarning } from '../errors.js';
import { applyValueModifiers, type NamedValueModifier } from './apply-value-modifiers.js';
import { checkCombinations, type NamedModifier } from './combination-rules.js';
import type { ItemLinking } from './modifier.js';
import { lookupModifier } from './registry.js';

export interface BuiltItem {
  readonly item: DetectionItem;
  readonly warnings: readonly SigmaWarning[];
}

/**
 * Build one detection item from its YAML key (`field|mod|mod`, `|mod` or `''` for keywords) and its
 * scalar values, running the modifier chain. Throws `SigmaError` (area `modifier` or `value`).
 */
export function buildDetectionItem(
  field: string | null,
  modifiers: readonly string[],
  values: readonly Scalar[],
  loc?: SourceLoc,
): BuiltItem {
  const chain: NamedModifier[] = modifiers.map((name) => ({ name, unit: lookupModifier(name, loc) }));
  const warnings = checkCombinations(chain, field, values, loc);
  checkNulls(field, values, loc, warnings);

  let linking: ItemLinking = { linking: 'or', negated: false };
  const valueChain: NamedValueModifier[] = [];
  for (const { name, unit } of chain) {
    if (unit.kind === 'list') linking = unit.apply(linking);
    else valueChain.push({ name, unit });
  }
  const built = values.map((v) => applyValueModifiers(v, valueChain, loc, warnings));
  return {
    item: {
      kind: 'item',
      field,
      modifiers,
      original: values,
      values: built,
      linking: linking.linking,
      negated: linking.negated,
      ...(loc ? { loc } : {}),
    },
    warnings,
  };
}

/** `null` belongs to a field; in a list it is tolerated (pySigma) with a warning; `[]` means "is null". */
function checkNulls(field: string | null, values: readonly Scalar[], loc: SourceLoc | undefined, warnings: SigmaWarning[]): void {
  if (field === null && (values.length === 0 || values.includes(null)))
    throw new SigmaError('value', 'NullKeyword', 'a null value must be bound to a field', loc);
  if (values.length > 1 && values.includes(null)) {
    const message = 'null in a value list: prefer a separate selection with the field set to null';
    warnings.push(loc ? { code: 'NullInValueList', message, loc } : { code: 'NullInValueList', message });
  }
}
