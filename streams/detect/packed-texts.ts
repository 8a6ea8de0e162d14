// A batch's detection texts as UTF-8 in one buffer, each followed by `\n` (the layout of the outbox's
// `Utf8Lines`): a detection worker's answer transfers it whole, and main copies its bytes into the
// outbox and the sinks instead of receiving one string per result and encoding it again (issue 19 §4).

/** Text `i` is `bytes[ends[i - 1] + 1, ends[i])` (from 0 for the first); `bytes[ends[i]]` is its `\n`. */
export interface PackedTexts {
  readonly bytes: Uint8Array<ArrayBuffer>;
  readonly ends: Int32Array<ArrayBuffer>;
}

/**
 * Collects one batch's texts as they are made, each encoded once into a buffer that grows as needed (no
 * array of strings, no pass to size them first); sized from the previous batch's bytes, so a batch
 * usually fits the first buffer.
 */
export class PackedTextWriter {
  private bytes: Buffer<ArrayBuffer>;
  private at = 0;
  private readonly ends: number[] = [];

  constructor(sizeHint: number) {
    // Not from Buffer's pool: a worker transfers the whole ArrayBuffer.
    this.bytes = Buffer.allocUnsafeSlow(Math.max(sizeHint, 4096));
  }

  push(text: string): void {
    // UTF-8 takes at most 3 bytes per UTF-16 code unit.
    const need = this.at + 3 * text.length + 1;
    if (need > this.bytes.length) {
      const grown = Buffer.allocUnsafeSlow(Math.max(need, 2 * this.bytes.length));
      this.bytes.copy(grown, 0, 0, this.at);
      this.bytes = grown;
    }
    this.at += this.bytes.write(text, this.at, 'utf8');
    this.ends.push(this.at);
    this.bytes[this.at++] = 0x0a;
  }

  done(): PackedTexts {
    return { bytes: new Uint8Array(this.bytes.buffer, 0, this.at), ends: Int32Array.from(this.ends) };
  }
}

/** Every text decoded (tests; main copies the bytes as they are). */
export function packedTextList(packed: PackedTexts): string[] {
  const bytes = Buffer.from(packed.bytes.buffer, packed.bytes.byteOffset, packed.bytes.byteLength);
  return Array.from(packed.ends, (end, i) => bytes.toString('utf8', i === 0 ? 0 : (packed.ends[i - 1] as number) + 1, end));
}
