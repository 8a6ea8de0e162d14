// `i`/`ignorecase`, `m`/`multiline`, `s`/`dotall` (§3.3.7): only after `re` (a type error otherwise).
import { ofKind, type ChainOfKind } from '../chain-value.js';
import type { ValueModifier } from '../modifier.js';

export function regexFlag(name: string, flag: 'i' | 'm' | 's'): ValueModifier<ChainOfKind<'regex'>> {
  return {
    kind: 'value',
    name,
    acceptsLabel: 'regular expression (after re)',
    accepts: ofKind('regex'),
    apply: (v) => ({ ...v, flags: { ...v.flags, [flag]: true } }),
  };
}
