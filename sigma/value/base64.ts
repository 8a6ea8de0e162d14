// Standard Base64 (RFC 4648, `=` padding) and the shift-invariant fragments of `base64offset` (§3.3.3).

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

export function encodeBase64(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const b0 = bytes[i] as number;
    const b1 = bytes[i + 1];
    const b2 = bytes[i + 2];
    const n = (b0 << 16) | ((b1 ?? 0) << 8) | (b2 ?? 0);
    out += ALPHABET[(n >> 18) & 63];
    out += ALPHABET[(n >> 12) & 63];
    out += b1 === undefined ? '=' : ALPHABET[(n >> 6) & 63];
    out += b2 === undefined ? '=' : ALPHABET[n & 63];
  }
  return out;
}

/** Characters that encode only padding bits, per leading pad length k = 0, 1, 2. */
const START_CUT = [0, 2, 3] as const;
/** Characters that depend on the unknown next bytes (or are `=`), per (n + k) mod 3. */
const END_CUT = [0, 3, 2] as const;

/**
 * The three Base64 fragments of `bytes` placed at offsets 0, 1 and 2 (mod 3) of a larger blob, each trimmed
 * to the characters that do not depend on the neighbouring bytes. Empty fragments are dropped, duplicates
 * kept once.
 */
export function base64OffsetFragments(bytes: Uint8Array): string[] {
  const fragments: string[] = [];
  for (let k = 0; k < 3; k++) {
    const padded = new Uint8Array(k + bytes.length);
    padded.set(bytes, k);
    const encoded = encodeBase64(padded);
    const fragment = encoded.slice(START_CUT[k as 0 | 1 | 2], encoded.length - END_CUT[((bytes.length + k) % 3) as 0 | 1 | 2]);
    if (fragment !== '' && !fragments.includes(fragment)) fragments.push(fragment);
  }
  return fragments;
}
