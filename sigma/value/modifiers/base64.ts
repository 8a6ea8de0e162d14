import { ofKind } from '../chain-value.js';
import { encodeBase64 } from '../base64.js';
import type { ValueModifier } from '../modifier.js';
import { literalParts } from '../sigma-string.js';
import { bytesToEncode, type Base64Input } from './base64-input.js';

/** `base64` (§3.3.2): the value becomes its Base64 text; we encode the literal text (pySigma re-escapes). */
export const base64: ValueModifier<Base64Input> = {
  kind: 'value',
  name: 'base64',
  acceptsLabel: 'string',
  needsConcreteDashes: true,
  accepts: ofKind('string', 'bytes'),
  apply: (v, ctx) => ({ kind: 'string', parts: literalParts(encodeBase64(bytesToEncode(v, ctx))), cased: v.cased }),
};
