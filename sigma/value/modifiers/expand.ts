import { ofKind, type ChainOfKind } from '../chain-value.js';
import type { ValueModifier } from '../modifier.js';
import { parsePlaceholders, regexPlaceholderNames } from '../placeholders.js';

/** `expand` (§3.3.13): `%name%` becomes a placeholder for the pipelines to resolve. */
export const expand: ValueModifier<ChainOfKind<'string' | 'regex'>> = {
  kind: 'value',
  name: 'expand',
  acceptsLabel: 'string or regular expression',
  accepts: ofKind('string', 'regex'),
  apply(v) {
    if (v.kind === 'string') return { kind: 'string', parts: parsePlaceholders(v.parts), cased: v.cased };
    return { ...v, placeholders: regexPlaceholderNames(v.pattern) };
  },
};
