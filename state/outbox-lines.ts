// A batch's result texts encoded to UTF-8 once: the outbox packs these bytes and the line sinks write
// them, where each used to encode every text again (issue 19 §4: ≈ a quarter of the main thread).

const NEWLINE = 0x0a;

/** Result texts as one UTF-8 buffer, each followed by `\n`: text `i` ends (its `\n`) at `ends[i]`. */
export class Utf8Lines {
  private constructor(
    readonly bytes: Buffer,
    private readonly ends: Int32Array,
  ) {}

  /**
   * Encodes `texts` into one buffer sized from their UTF-8 lengths: the bytes `Buffer.from` makes of each
   * text (joining the texts first and encoding the joined text costs about three times as much).
   */
  static of(texts: readonly string[]): Utf8Lines {
    const ends = new Int32Array(texts.length);
    let size = 0;
    for (const text of texts) size += Buffer.byteLength(text, 'utf8') + 1;
    const bytes = Buffer.allocUnsafe(size);
    let at = 0;
    for (let i = 0; i < texts.length; i++) {
      at += bytes.write(texts[i] as string, at, 'utf8');
      ends[i] = at;
      bytes[at++] = NEWLINE;
    }
    return new Utf8Lines(bytes, ends);
  }

  get length(): number {
    return this.ends.length;
  }

  /** Where text `i` starts. */
  start(i: number): number {
    return i === 0 ? 0 : (this.ends[i - 1] as number) + 1;
  }

  /** Where text `i` ends (the offset of its `\n`). */
  end(i: number): number {
    return this.ends[i] as number;
  }

  /** Texts `from` to `to` (exclusive) with their line breaks, without copying. */
  range(from: number, to: number): Buffer {
    return to <= from ? this.bytes.subarray(0, 0) : this.bytes.subarray(this.start(from), this.end(to - 1) + 1);
  }
}
