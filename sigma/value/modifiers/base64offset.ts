import { ofKind } from '../chain-value.js';
import { base64OffsetFragments } from '../base64.js';
import { modifierError, type ValueModifier } from '../modifier.js';
import { bytesToEncode, type Base64Input } from './base64-input.js';

/** `base64offset` (§3.3.3): an OR group of the fragments for the three alignments. */
export const base64offset: ValueModifier<Base64Input> = {
  kind: 'value',
  name: 'base64offset',
  acceptsLabel: 'string',
  needsConcreteDashes: true,
  accepts: ofKind('string', 'bytes'),
  apply(v, ctx) {
    const fragments = base64OffsetFragments(bytesToEncode(v, ctx));
    if (fragments.length === 0) throw modifierError('EmptyValue', `modifier '${ctx.name}' needs a non-empty value`, ctx.loc);
    return {
      kind: 'expansion',
      alternatives: fragments.map((s) => ({ kind: 'string', parts: [{ t: 'lit', s }], cased: v.cased })),
    };
  },
};
