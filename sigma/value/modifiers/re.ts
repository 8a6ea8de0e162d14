import { ofKind, type ChainOfKind } from '../chain-value.js';
import type { ValueModifier } from '../modifier.js';
import { printSigmaString } from '../sigma-string.js';

/**
 * `re` (§3.3.7): the YAML text is the pattern, verbatim. It is validated and translated to a JavaScript
 * RegExp by the matcher compiler, which owns the Python-to-JS differences.
 */
export const re: ValueModifier<ChainOfKind<'string'>> = {
  kind: 'value',
  name: 're',
  acceptsLabel: 'string',
  mustBeFirst: true,
  accepts: ofKind('string'),
  apply: (v) => ({ kind: 'regex', pattern: v.source ?? printSigmaString(v.parts), flags: { i: false, m: false, s: false } }),
};
