// `wide`/`utf16le`, `utf16be`, `utf16` (§3.3.4): text → bytes, wildcards pass through as wildcards.
// `utf16` writes the byte-order mark FF FE as the spec says (pySigma's EF BB BF is a bug).
import { ofKind, type ByteChunk, type ChainOfKind } from '../chain-value.js';
import { modifierError, type ValueModifier } from '../modifier.js';
import { encodeUtf16, type Utf16Order } from '../text-encoding.js';

const BOM = Uint8Array.of(0xff, 0xfe);

export function utf16Encoding(name: string, order: Utf16Order, bom: boolean): ValueModifier<ChainOfKind<'string'>> {
  return {
    kind: 'value',
    name,
    acceptsLabel: 'string',
    needsConcreteDashes: true,
    accepts: ofKind('string'),
    apply(v, ctx) {
      const chunks: ByteChunk[] = bom ? [BOM] : [];
      for (const p of v.parts) {
        if (p.t === 'lit') chunks.push(encodeUtf16(p.s, order));
        else if (p.t === 'any' || p.t === 'one') chunks.push(p);
        else throw modifierError('PlaceholderNotAllowed', `modifier '${ctx.name}' cannot encode a placeholder`, ctx.loc);
      }
      return { kind: 'bytes', chunks, cased: v.cased };
    },
  };
}
