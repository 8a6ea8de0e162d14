// What `base64` and `base64offset` encode: the UTF-8 of literal text, or the bytes of a preceding
// `wide`/`utf16*`. Wildcards cannot be encoded (§3.3.2), so `contains|base64` is an error.
import type { ChainOfKind } from '../chain-value.js';
import { modifierError, type ModifierContext } from '../modifier.js';
import { encodeUtf8 } from '../text-encoding.js';

export type Base64Input = ChainOfKind<'string' | 'bytes'>;

export function bytesToEncode(v: Base64Input, ctx: ModifierContext): Uint8Array {
  const chunks: Uint8Array[] = [];
  const items = v.kind === 'string' ? v.parts : v.chunks;
  for (const item of items) {
    if (item instanceof Uint8Array) chunks.push(item);
    else if (item.t === 'lit') chunks.push(encodeUtf8(item.s));
    else if (item.t === 'ph') throw modifierError('PlaceholderNotAllowed', `modifier '${ctx.name}' cannot encode a placeholder`, ctx.loc);
    else
      throw modifierError(
        'WildcardNotAllowed',
        `modifier '${ctx.name}' cannot encode a value with wildcards (write '${ctx.name}|contains', not 'contains|${ctx.name}')`,
        ctx.loc,
      );
  }
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}
