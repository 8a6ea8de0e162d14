// A batch's result texts encoded to UTF-8 once: the outbox packs these bytes and the line sinks write
// them, where each used to encode every text again (issue 19 §4: ≈ a quarter of the main thread).

const NEWLINE = 0x0a;
const COMMA = 0x2c;

/** A committed result's id and NDJSON text. */
export interface ResultText {
  readonly result_id: string;
  readonly text: string;
}

/** A detection's text as its id's head (`{"result_id":<id>`) and its text without the id (`{…}`). */
interface TextParts {
  readonly head: string;
  readonly body: string;
}

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
    return Utf8Lines.encode(texts.length, (i) => texts[i] as string);
  }

  /**
   * The texts of `results`, where `bodies[i]`, when given, is result `i`'s detection text without its id:
   * its text is `{"result_id":<id>,` and the body past its `{`, encoded from those two parts rather than
   * from the joined text (which would have to be flattened first).
   */
  static ofResults(results: readonly ResultText[], bodies?: readonly (string | undefined)[]): Utf8Lines {
    return Utf8Lines.encode(results.length, (i) => (results[i] as ResultText).text, (i) => {
      const body = bodies?.[i];
      return body === undefined ? undefined : { head: `{"result_id":${JSON.stringify((results[i] as ResultText).result_id)}`, body };
    });
  }

  private static encode(n: number, textOf: (i: number) => string, partsOf?: (i: number) => TextParts | undefined): Utf8Lines {
    const parts = new Array<TextParts | undefined>(n);
    let size = n;
    for (let i = 0; i < n; i++) {
      const p = partsOf?.(i);
      parts[i] = p;
      size += p === undefined ? Buffer.byteLength(textOf(i), 'utf8') : Buffer.byteLength(p.head, 'utf8') + Buffer.byteLength(p.body, 'utf8');
    }
    const bytes = Buffer.allocUnsafe(size);
    const ends = new Int32Array(n);
    let at = 0;
    for (let i = 0; i < n; i++) {
      const p = parts[i];
      if (p === undefined) at += bytes.write(textOf(i), at, 'utf8');
      else {
        at += bytes.write(p.head, at, 'utf8');
        const open = at;
        at += bytes.write(p.body, at, 'utf8');
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
