/** Longest NDJSON line accepted, in UTF-8 bytes without its terminator (interface limit, daemon-semantics §3.5). */
export const MAX_LINE_BYTES = 1024 * 1024;

/** Bytes of an oversized line kept for its report (a dead-letter entry stays bounded). */
export const OVERSIZED_HEAD_BYTES = 4096;

/**
 * One framed line, or the report of a line that was dropped. `lineNo` counts physical lines from 1.
 * A dropped line's `head` is its first bytes (at most `headBytes`, cut at a character boundary), for its
 * dead-letter entry; in a line that is not UTF-8, invalid sequences read as U+FFFD.
 */
export type LineFrame =
  | { readonly ok: true; readonly line: string; readonly lineNo: number }
  | { readonly ok: false; readonly reason: 'too_long' | 'invalid_utf8'; readonly bytes: number; readonly lineNo: number; readonly head: string };

/**
 * A framed line, made by a constructor rather than an object literal: V8 pretenures an object literal's
 * allocation site once most of its objects outlive a scavenge (a batch's frames all live while the batch
 * is evaluated), and each old-space frame then keeps its young line string alive until the next full GC:
 * every line was copied twice and promoted (≈ 6 % of `sigmad eval`'s CPU, issue 19 §3).
 */
class LineText {
  readonly ok = true;
  readonly line: string;
  readonly lineNo: number;
  constructor(line: string, lineNo: number) {
    this.line = line;
    this.lineNo = lineNo;
  }
}

/** A line the splitter dropped. */
export type RejectedLine = Extract<LineFrame, { readonly ok: false }>;

export interface LineSplitterOptions {
  /** Defaults to `MAX_LINE_BYTES`. */
  readonly maxLineBytes?: number;
  /** Defaults to `OVERSIZED_HEAD_BYTES`. */
  readonly headBytes?: number;
}

const LF = 0x0a;
const CR = 0x0d;
const EMPTY = new Uint8Array(0);

function isBlank(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09 && c !== CR && c !== 0x0c && c !== 0x0b && c !== 0xfeff) return false;
  }
  return true;
}

/**
 * Incremental newline framing over string or byte chunks. A line split across chunks is kept as byte
 * pieces until its newline arrives; once it is longer than the limit the pieces are dropped and the
 * rest of the line is only counted, so an oversized line never sits in memory whole. `\r\n` endings
 * are accepted, blank lines skipped, and `end()` flushes a final line without newline.
 */
export class LineSplitter {
  private readonly max: number;
  private readonly headMax: number;
  /** The first bytes of a line being discarded, for its report. */
  private head: Uint8Array = EMPTY;
  private readonly encoder = new TextEncoder();
  private readonly decoder = new TextDecoder('utf-8', { fatal: true });
  private pieces: Uint8Array[] = [];
  private pendingBytes = 0;
  /** True while skipping the rest of a line already known to be too long. */
  private discarding = false;
  private lastByte = -1;
  /** A high surrogate that ended a string chunk; its pair starts the next one. */
  private highSurrogate = '';
  private lineNo = 0;

  constructor(options: LineSplitterOptions = {}) {
    this.max = options.maxLineBytes ?? MAX_LINE_BYTES;
    this.headMax = options.headBytes ?? OVERSIZED_HEAD_BYTES;
  }

  /** Bytes held for the incomplete current line (never more than the limit plus one; a discarded line's head aside). */
  get bufferedBytes(): number {
    return this.discarding ? 0 : this.pendingBytes;
  }

  push(chunk: string | Uint8Array): LineFrame[] {
    const bytes = typeof chunk === 'string' ? this.encodeText(chunk) : chunk;
    const out: LineFrame[] = [];
    let start = 0;
    for (let nl = bytes.indexOf(LF); nl !== -1; nl = bytes.indexOf(LF, start)) {
      this.finishLine(bytes.subarray(start, nl), out);
      start = nl + 1;
    }
    if (start < bytes.length) this.keep(bytes.subarray(start));
    return out;
  }

  /** Flushes the final line if the input did not end with a newline. */
  end(): LineFrame[] {
    const out: LineFrame[] = [];
    if (this.highSurrogate !== '') this.keep(this.encoder.encode(this.highSurrogate));
    this.highSurrogate = '';
    if (this.pendingBytes > 0 || this.discarding) this.finishLine(EMPTY, out);
    return out;
  }

  private encodeText(chunk: string): Uint8Array {
    let text = this.highSurrogate + chunk;
    this.highSurrogate = '';
    const last = text.charCodeAt(text.length - 1);
    if (last >= 0xd800 && last <= 0xdbff) {
      this.highSurrogate = text.slice(-1);
      text = text.slice(0, -1);
    }
    return this.encoder.encode(text);
  }

  private keep(part: Uint8Array): void {
    this.pendingBytes += part.length;
    this.lastByte = part[part.length - 1] ?? this.lastByte;
    if (this.discarding) {
      if (this.head.length < this.headMax) this.head = this.grown(this.head, part);
      return;
    }
    // One byte of slack: a trailing `\r` may still turn out to be part of a `\r\n` terminator.
    if (this.pendingBytes > this.max + 1) {
      this.discarding = true;
      this.pieces.push(part);
      this.head = this.prefix(EMPTY, this.headMax);
      this.pieces = [];
    } else {
      // Copy: the caller may reuse its chunk buffer after push() returns.
      this.pieces.push(part.slice());
    }
  }

  private finishLine(tail: Uint8Array, out: LineFrame[]): void {
    this.lineNo++;
    let total = this.pendingBytes + tail.length;
    const endsWithCr = (tail.length > 0 ? tail[tail.length - 1] : this.pendingBytes > 0 ? this.lastByte : -1) === CR;
    if (endsWithCr) total--;
    if (this.discarding || total > this.max) {
      const head = this.discarding ? this.head.subarray(0, Math.min(total, this.head.length)) : this.prefix(tail, Math.min(total, this.headMax));
      out.push({ ok: false, reason: 'too_long', bytes: total, lineNo: this.lineNo, head: new TextDecoder().decode(head, { stream: true }) });
    } else if (total > 0) {
      const bytes = this.joined(tail, total);
      const text = this.decode(bytes);
      if (text === undefined) {
        const head = new TextDecoder().decode(bytes.subarray(0, this.headMax), { stream: true });
        out.push({ ok: false, reason: 'invalid_utf8', bytes: total, lineNo: this.lineNo, head });
      }
      else if (!isBlank(text)) out.push(new LineText(text, this.lineNo));
    }
    this.pieces = [];
    this.pendingBytes = 0;
    this.discarding = false;
    this.head = EMPTY;
  }

  /** `head` with as much of `part` as fits under the head limit (a copy). */
  private grown(head: Uint8Array, part: Uint8Array): Uint8Array {
    const buf = new Uint8Array(Math.min(this.headMax, head.length + part.length));
    buf.set(head);
    buf.set(part.subarray(0, buf.length - head.length), head.length);
    return buf;
  }

  /** The first `n` bytes of the pending pieces followed by `tail` (a copy). */
  private prefix(tail: Uint8Array, n: number): Uint8Array {
    const buf = new Uint8Array(n);
    let at = 0;
    for (const p of [...this.pieces, tail]) {
      if (at >= n) break;
      const take = Math.min(p.length, n - at);
      buf.set(p.subarray(0, take), at);
      at += take;
    }
    return buf.subarray(0, at);
  }

  /** The line's bytes without the `\r`; a view of `tail` when nothing was pending (the common case). */
  private joined(tail: Uint8Array, total: number): Uint8Array {
    if (this.pieces.length === 0) return tail.subarray(0, total);
    const buf = new Uint8Array(total);
    let at = 0;
    for (const p of this.pieces) {
      const n = Math.min(p.length, total - at);
      buf.set(p.subarray(0, n), at);
      at += n;
    }
    buf.set(tail.subarray(0, total - at), at);
    return buf;
  }

  private decode(bytes: Uint8Array): string | undefined {
    try {
      return this.decoder.decode(bytes);
    } catch {
      return undefined;
    }
  }
}

/** Frames a whole input at once (an HTTP body, a file). */
export function splitLines(input: string | Uint8Array, options?: LineSplitterOptions): LineFrame[] {
  const splitter = new LineSplitter(options);
  const frames = splitter.push(input);
  for (const f of splitter.end()) frames.push(f);
  return frames;
}
