// A batch's result texts encoded to UTF-8 once: the outbox packs these bytes and the line sinks write
// them, where each used to encode every text again (issue 19 §4: ≈ a quarter of the main thread).

const NEWLINE = 0x0a;

/** A committed result's id and NDJSON text. */
export interface ResultText {
  readonly result_id: string;
  readonly text: string;
}

/** Per result of a batch, the index of its detection text without id in `texts`, or -1 (see `Utf8Lines.ofResults`). */
export interface ResultBodies {
  readonly texts: Utf8Lines;
  readonly of: readonly number[];
}

/** Result texts as one UTF-8 buffer, each followed by `\n`: text `i` ends (its `\n`) at `ends[i]`. */
export class Utf8Lines {
  private constructor(
    readonly bytes: Buffer,
    private readonly ends: Int32Array,
  ) {}

  /** Texts already encoded in this layout (`bytes`, text `i`'s `\n` at `ends[i]`): a detection worker's answer. */
  static of(bytes: Uint8Array, ends: Int32Array): Utf8Lines {
    return new Utf8Lines(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), ends);
  }

  /**
   * Encodes the texts of `results` into one buffer sized from their UTF-8 lengths: the bytes `Buffer.from`
   * makes of each text (joining the texts and encoding the joined text costs about three times as much).
   * `bodies.of[i]`, when not -1, is the index in `bodies.texts` of result `i`'s detection text without its
   * id (a JSON object): its text is `{"result_id":<id>,` and the body past its `{`, copied from those bytes
   * rather than encoded from the joined text.
   */
  static ofResults(results: readonly ResultText[], bodies?: ResultBodies): Utf8Lines {
    const n = results.length;
    const heads = new Array<string | undefined>(n);
    let size = n;
    for (let i = 0; i < n; i++) {
      const b = bodies?.of[i] ?? -1;
      const { result_id } = results[i] as ResultText;
      if (b < 0) size += Buffer.byteLength((results[i] as ResultText).text, 'utf8');
      else {
        const head = `{"result_id":${JSON.stringify(result_id)},`;
        heads[i] = head;
        size += Buffer.byteLength(head, 'utf8') + (bodies as ResultBodies).texts.end(b) - (bodies as ResultBodies).texts.start(b) - 1;
      }
    }
    const bytes = Buffer.allocUnsafe(size);
    const ends = new Int32Array(n);
    let at = 0;
    for (let i = 0; i < n; i++) {
      const head = heads[i];
      if (head === undefined) at += bytes.write((results[i] as ResultText).text, at, 'utf8');
      else {
        const { texts, of } = bodies as ResultBodies;
        const b = of[i] as number;
        at += bytes.write(head, at, 'utf8');
        // The body's `{` is the `,` already written after the id.
        at += texts.bytes.copy(bytes, at, texts.start(b) + 1, texts.end(b));
      }
      ends[i] = at;
      bytes[at++] = NEWLINE;
    }
    return new Utf8Lines(bytes, ends);
  }

  /** Text `i` decoded. */
  text(i: number): string {
    return this.bytes.toString('utf8', this.start(i), this.end(i));
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
