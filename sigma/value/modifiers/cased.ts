import { ofKind, type ChainOfKind } from '../chain-value.js';
import type { ValueModifier } from '../modifier.js';

/** `cased` (§3.3.15): case-sensitive comparison, in any position relative to contains & co. */
export const cased: ValueModifier<ChainOfKind<'string' | 'bytes' | 'fieldref'>> = {
  kind: 'value',
  name: 'cased',
  acceptsLabel: 'string or field reference',
  accepts: ofKind('string', 'bytes', 'fieldref'),
  apply: (v) => ({ ...v, cased: true }),
};
