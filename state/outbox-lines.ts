// A batch's result texts encoded to UTF-8 once: the outbox packs these bytes and the line sinks write
// them, where each used to encode every text again (issue 19 §4: ≈ a quarter of the main thread).

const NEWLINE = 0x0a;
const COMMA = 0x2c;

/** A committed result's id and NDJSON text. */
export interface ResultText {
  readonly result_id: string;
  readonly text: string;
}

/** Result texts as one UTF-8 buffer, each followed by `\n`: text `i` ends (its `\n`) at `ends[i]`. */
export class Utf8Lines {
  private constructor(
    readonly bytes: Buffer,
    private readonly ends: Int32Array,
  ) {}

  /**
   * Encodes the texts of `results` into one buffer sized from their UTF-8 lengths: the bytes `Buffer.from`
   * makes of each text (joining the texts and encoding the joined text costs about three times as much).
   * `bodies[i]`, when given, is result `i`'s detection text without its id (a JSON object): its text is
   * `{"result_id":<id>,` and the body past its `{`, encoded from those two parts rather than from the
   * joined text (which would have to be flattened first).
   */
  static ofResults(results: readonly ResultText[], bodies?: readonly (string | undefined)[]): Utf8Lines {
    const n = results.length;
    const heads = new Array<string | undefined>(n);
    let size = n;
    for (let i = 0; i < n; i++) {
      const { result_id, text } = results[i] as ResultText;
      const body = bodies?.[i];
      if (body === undefined) size += Buffer.byteLength(text, 'utf8');
      else {
        const head = `{"result_id":${JSON.stringify(result_id)}`;
        heads[i] = head;
        size += Buffer.byteLength(head, 'utf8') + Buffer.byteLength(body, 'utf8');
      }
    }
    const bytes = Buffer.allocUnsafe(size);
    const ends = new Int32Array(n);
    let at = 0;
    for (let i = 0; i < n; i++) {
      const head = heads[i];
      if (head === undefined) at += bytes.write((results[i] as ResultText).text, at, 'utf8');
      else {
        at += bytes.write(head, at, 'utf8');
        const open = at;
        at += bytes.write(bodies?.[i] as string, at, 'utf8');
        // The body's `{` becomes the `,` after the id.
        bytes[open] = COMMA;
      }
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
