import { ofKind, type ChainOfKind } from '../chain-value.js';
import { modifierError, type ValueModifier } from '../modifier.js';
import { literalText } from '../sigma-string.js';

const WORDS: Readonly<Record<string, boolean>> = { true: true, yes: true, on: true, false: false, no: false, off: false };

/** `exists` (§3.3.12): a boolean, or one of the YAML 1.1 boolean words as a string. */
export const exists: ValueModifier<ChainOfKind<'bool' | 'string'>> = {
  kind: 'value',
  name: 'exists',
  acceptsLabel: 'boolean',
  mustBeFirst: true,
  fieldOnly: true,
  accepts: ofKind('bool', 'string'),
  apply(v, ctx) {
    if (v.kind === 'bool') return { kind: 'exists', value: v.value };
    const text = literalText(v.parts)?.toLowerCase();
    const value = text === undefined ? undefined : WORDS[text];
    if (value === undefined)
      throw modifierError('ModifierTypeError', `modifier '${ctx.name}' needs a boolean, got the string '${v.source ?? ''}'`, ctx.loc);
    return { kind: 'exists', value };
  },
};
