// Byte encodings of rule text, written out here because `sigma/` must stay free of `node:*` (no Buffer).

export type Utf16Order = 'le' | 'be';

const utf8 = new TextEncoder();

export function encodeUtf8(text: string): Uint8Array {
  return utf8.encode(text);
}

/** UTF-16 code units in the given byte order (surrogate pairs are already two units in JS strings). */
export function encodeUtf16(text: string, order: Utf16Order): Uint8Array {
  const out = new Uint8Array(text.length * 2);
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    const hi = unit >> 8;
    const lo = unit & 0xff;
    out[2 * i] = order === 'le' ? lo : hi;
    out[2 * i + 1] = order === 'le' ? hi : lo;
  }
  return out;
}

/** One character per byte (U+0000–U+00FF): how encoded bytes are matched when no Base64 step follows. */
export function bytesAsLatin1(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return s;
}
