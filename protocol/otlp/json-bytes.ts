// JSON text written as bytes into one growing buffer, copying strings from the UTF-8 bytes they arrived
// in, so that a record becomes one JS string instead of one per field. Escapes exactly what
// `JSON.stringify` escapes in valid UTF-8 text: `"`, `\` and the control characters below U+0020.
// The buffer holds Latin-1 (one byte per character) while every character fits, because V8 makes a
// string of Latin-1 bytes several times faster than of UTF-8 bytes with any non-ASCII in them; the
// first character above U+00FF, or a byte that is not valid UTF-8, turns it to UTF-8 for the rest.

/**
 * Per byte: 0 copied as is, else the byte of its short escape (`\n`), 1 for `\u00XX`, or `HIGH` for a
 * byte of a multi-byte character.
 */
const ESCAPES = new Uint8Array(256);
const HIGH = 2;
for (let b = 0; b < 0x20; b++) ESCAPES[b] = 1;
for (let b = 0x80; b < 0x100; b++) ESCAPES[b] = HIGH;
for (const [b, c] of [[0x08, 'b'], [0x09, 't'], [0x0a, 'n'], [0x0c, 'f'], [0x0d, 'r'], [0x22, '"'], [0x5c, '\\']] as const) ESCAPES[b] = c.charCodeAt(0);

const HEX = '0123456789abcdef';
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Per byte of a JSON string literal copied as it is: 0 copied, 1 its closing quote, 2 an escape, 3 not copied (a control character, not ASCII). */
const LITERAL = new Uint8Array(256);
for (let b = 0; b < 0x20; b++) LITERAL[b] = 3;
for (let b = 0x80; b < 0x100; b++) LITERAL[b] = 3;
LITERAL[QUOTE] = 1;
LITERAL[BACKSLASH] = 2;
/** Escapes `JSON.stringify` writes as they are read: the short ones (not `\/`, not `\u`). */
const SHORT_ESCAPE = new Uint8Array(256);
for (const c of '"\\bfnrt') SHORT_ESCAPE[c.charCodeAt(0)] = 1;
/** Literals longer than this are left to the caller. */
const LITERAL_MAX = 4096;

/** The text has a character above U+00FF, so that `JsonBytes` writes it as UTF-8. */
export function widerThanLatin1(text: string): boolean {
  return /[^\x00-\xff]/.test(text);
}

export class JsonBytes {
  private buf = Buffer.allocUnsafe(1 << 16);
  pos = 0;
  /**
   * The buffer holds UTF-8 since a wider character or bytes that are not valid UTF-8 were written (the
   * text may then need a UTF-8 check); else Latin-1, exact.
   */
  wide = false;

  reset(): void {
    this.pos = 0;
    this.wide = false;
  }

  /** The text written since `reset`. */
  text(): string {
    return this.wide ? this.buf.toString('utf8', 0, this.pos) : this.buf.toString('latin1', 0, this.pos);
  }

  /** Re-encodes the Latin-1 written so far as UTF-8, for text that does not fit Latin-1. */
  private widen(): void {
    if (this.wide) return;
    const text = this.buf.toString('latin1', 0, this.pos);
    this.pos = 0;
    this.room(text.length * 2);
    this.pos = this.buf.write(text, 0, 'utf8');
    this.wide = true;
  }

  private room(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(grown, 0, 0, this.pos);
    this.buf = grown;
  }

  /** One ASCII character (punctuation). */
  char(code: number): void {
    this.room(1);
    this.buf[this.pos++] = code;
  }

  /** Text known to need no escaping and to be ASCII (numbers, hex, time stamps, literals). */
  ascii(text: string): void {
    this.room(text.length);
    const { buf } = this;
    let p = this.pos;
    for (let i = 0; i < text.length; i++) buf[p++] = text.charCodeAt(i);
    this.pos = p;
  }

  /** Any JSON text made by `JSON.stringify`. */
  json(text: string): void {
    if (!this.wide && widerThanLatin1(text)) this.widen();
    this.room(text.length * 3);
    this.pos += this.buf.write(text, this.pos, this.wide ? 'utf8' : 'latin1');
  }

  /** Bytes of JSON text, written before: Latin-1, or UTF-8 (`wide`) for text that does not fit it. */
  bytes(src: Buffer, wide: boolean, from = 0, to = src.length): void {
    if (wide) this.widen();
    if (this.wide && !wide) {
      this.json(src.toString('latin1', from, to));
      return;
    }
    this.room(to - from);
    this.pos += src.copy(this.buf, this.pos, from, to);
  }

  /** The text `other` holds from its byte `from` on. */
  append(other: JsonBytes, from: number): void {
    this.bytes(other.buf, other.wide, from, other.pos);
  }

  /** A JSON string of the UTF-8 bytes `src[from, to)`, escaped as `JSON.stringify` escapes them. */
  string(src: Uint8Array, from: number, to: number): void {
    this.room((to - from) * 6 + 2);
    let { buf } = this;
    let p = this.pos;
    buf[p++] = QUOTE;
    for (let i = from; i < to; i++) {
      const b = src[i] as number;
      const e = ESCAPES[b] as number;
      if (e === 0) {
        buf[p++] = b;
        continue;
      }
      if (e !== HIGH) {
        p = escape(buf, p, b, e);
        continue;
      }
      if (!this.wide) {
        // U+0080..U+00FF: a lead byte C2 or C3 and one continuation byte.
        const next = i + 1 < to ? (src[i + 1] as number) : 0;
        if ((b === 0xc2 || b === 0xc3) && (next & 0xc0) === 0x80) {
          buf[p++] = ((b & 3) << 6) | (next & 0x3f);
          i++;
          continue;
        }
        this.pos = p;
        this.widen();
        this.room((to - i) * 6 + 1);
        ({ buf } = this);
        p = this.pos;
      }
      buf[p++] = b;
    }
    buf[p++] = QUOTE;
    this.pos = p;
  }

  /** ASCII bytes `src[from, to)` of JSON string text (escaped as `JSON.stringify` escapes), quoted. */
  quoted(src: Uint8Array, from: number, to: number): void {
    this.room(to - from + 2);
    const { buf } = this;
    let p = this.pos;
    buf[p++] = QUOTE;
    for (let i = from; i < to; i++) buf[p++] = src[i] as number;
    buf[p++] = QUOTE;
    this.pos = p;
  }

  /**
   * The JSON string literal at `src[from]` (its opening quote) copied as it is, when it is ASCII and
   * escaped as `JSON.stringify` escapes (short escapes only): the index past its closing quote, or -1
   * with nothing written for any other literal (or one of more than a few KiB).
   */
  literal(src: Uint8Array, from: number): number {
    const end = Math.min(src.length, from + LITERAL_MAX);
    this.room(end - from + 2);
    const { buf } = this;
    let p = this.pos;
    buf[p++] = QUOTE;
    for (let i = from + 1; i < end; i++) {
      const c = src[i] as number;
      const k = LITERAL[c];
      if (k === 0) {
        buf[p++] = c;
        continue;
      }
      if (k === 1) {
        buf[p++] = QUOTE;
        this.pos = p;
        return i + 1;
      }
      if (k === 3 || SHORT_ESCAPE[src[i + 1] as number] !== 1) return -1;
      buf[p++] = c;
      buf[p++] = src[++i] as number;
    }
    return -1;
  }

  /** The bytes `src[from, to)` as a JSON string of lowercase hex digits. */
  hex(src: Uint8Array, from: number, to: number): void {
    this.room((to - from) * 2 + 2);
    const { buf } = this;
    let p = this.pos;
    buf[p++] = QUOTE;
    for (let i = from; i < to; i++) {
      const b = src[i] as number;
      buf[p++] = HEX.charCodeAt(b >> 4);
      buf[p++] = HEX.charCodeAt(b & 15);
    }
    buf[p++] = QUOTE;
    this.pos = p;
  }
}

/** Writes the escape `e` (from `ESCAPES`) of byte `b` at `p`; the new position. */
function escape(buf: Buffer, p: number, b: number, e: number): number {
  buf[p++] = BACKSLASH;
  if (e !== 1) {
    buf[p++] = e;
    return p;
  }
  buf[p++] = 0x75; // u
  buf[p++] = 0x30;
  buf[p++] = 0x30;
  buf[p++] = HEX.charCodeAt(b >> 4);
  buf[p++] = HEX.charCodeAt(b & 15);
  return p;
}
