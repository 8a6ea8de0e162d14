// A batch's detection texts as UTF-8 in one buffer, each followed by `\n` (the layout of the outbox's
// `Utf8Lines`): a detection worker's answer transfers it whole, and main copies its bytes into the
// outbox and the sinks instead of receiving one string per result and encoding it again (issue 19 §4).

/** Text `i` is `bytes[ends[i - 1] + 1, ends[i])` (from 0 for the first); `bytes[ends[i]]` is its `\n`. */
export interface PackedTexts {
  readonly bytes: Uint8Array<ArrayBuffer>;
  readonly ends: Int32Array<ArrayBuffer>;
}

export function packTexts(texts: readonly string[]): PackedTexts {
  let size = texts.length;
  for (const t of texts) size += Buffer.byteLength(t, 'utf8');
  // Not from Buffer's pool: a worker transfers the whole ArrayBuffer.
  const bytes = Buffer.allocUnsafeSlow(size);
  const ends = new Int32Array(texts.length);
  let at = 0;
  for (let i = 0; i < texts.length; i++) {
    at += bytes.write(texts[i] as string, at, 'utf8');
    ends[i] = at;
    bytes[at++] = 0x0a;
  }
  return { bytes: new Uint8Array(bytes.buffer, 0, size), ends };
}

/** Every text decoded (tests; main copies the bytes as they are). */
export function packedTextList(packed: PackedTexts): string[] {
  const bytes = Buffer.from(packed.bytes.buffer, packed.bytes.byteOffset, packed.bytes.byteLength);
  return Array.from(packed.ends, (end, i) => bytes.toString('utf8', i === 0 ? 0 : (packed.ends[i - 1] as number) + 1, end));
}
