// Item-level checks on the modifier list (§3.4): what is an error and what only a warning. Type errors of
// single values are found while the chain runs; these are the rules that need the whole list.
import type { Scalar, SourceLoc } from '../ast.js';
import type { SigmaWarning } from '../errors.js';
import type { Modifier } from './modifier.js';
import { modifierError } from './modifier.js';
import { MODIFIERS } from './registry.js';

export interface NamedModifier {
  readonly name: string;
  readonly unit: Modifier;
}

const OPERATORS: readonly Modifier[] = [MODIFIERS.contains, MODIFIERS.startswith, MODIFIERS.endswith];
const UTF16: readonly Modifier[] = [MODIFIERS.wide, MODIFIERS.utf16be, MODIFIERS.utf16];
const BASE64: readonly Modifier[] = [MODIFIERS.base64, MODIFIERS.base64offset];

export function checkCombinations(
  chain: readonly NamedModifier[],
  field: string | null,
  values: readonly Scalar[],
  loc: SourceLoc | undefined,
): SigmaWarning[] {
  const warnings: SigmaWarning[] = [];
  const warn = (code: string, message: string): void => {
    warnings.push(loc ? { code, message, loc } : { code, message });
  };
  const written = (units: readonly Modifier[]): string[] => chain.filter((c) => units.includes(c.unit)).map((c) => c.name);

  chain.forEach(({ name, unit }, index) => {
    if (unit.kind !== 'value') return;
    if (unit.mustBeFirst === true && chain.slice(0, index).some((c) => c.unit.kind === 'value'))
      throw modifierError('ModifierNotFirst', `modifier '${name}' must come first (it only applies to unmodified values)`, loc);
    if (unit.fieldOnly === true && field === null)
      throw modifierError('FieldRequired', `modifier '${name}' must be applied to a field, not to keywords`, loc);
  });

  const encodings = written(UTF16);
  if (encodings.length > 1)
    throw modifierError('ConflictingModifiers', `modifiers ${quoteList(encodings)} conflict: use one UTF-16 encoding`, loc);
  const base64s = written(BASE64);
  if (base64s.length > 1 && base64s.includes('base64offset'))
    throw modifierError('ConflictingModifiers', `modifiers ${quoteList(base64s)} conflict: base64offset cannot be combined with another Base64 step`, loc);

  const seen = new Set<Modifier>();
  for (const { name, unit } of chain) {
    if (seen.has(unit) && unit !== MODIFIERS.base64) warn('DuplicateModifier', `modifier '${name}' is applied twice`);
    seen.add(unit);
  }
  const operators = new Set(written(OPERATORS));
  if (operators.size > 1) warn('MultipleOperators', `modifiers ${quoteList([...operators])} on one item: only one of them takes effect`);

  const offset = chain.findIndex((c) => c.unit === MODIFIERS.base64offset);
  if (offset >= 0 && !chain.slice(offset + 1).some((c) => c.unit === MODIFIERS.contains))
    warn('Base64OffsetWithoutContains', "modifier 'base64offset' without a following 'contains' matches whole values only");

  if (chain.some((c) => c.unit === MODIFIERS.all) && values.length === 1)
    warn('AllWithSingleValue', "modifier 'all' with a single value has no effect");
  if (chain.some((c) => c.unit === MODIFIERS.exists) && values.length !== 1)
    throw modifierError('ModifierTypeError', "modifier 'exists' takes exactly one boolean value", loc);
  return warnings;
}

function quoteList(names: readonly string[]): string {
  return names.map((n) => `'${n}'`).join(', ');
}
