// JSON text written as UTF-8 bytes into one growing buffer, copying strings from the UTF-8 bytes they
// arrived in, so that an export's records become one buffer of lines (`ByteLines`) that travels to the
// detection workers as it is, with no JS string per record or field on the main thread. Escapes exactly
// what `JSON.stringify` escapes in valid UTF-8 text: `"`, `\` and the control characters below U+0020.

/** Per byte: 0 copied as is, else the byte of its short escape (`\n`), or 1 for `\u00XX`. */
const ESCAPES = new Uint8Array(256);
for (let b = 0; b < 0x20; b++) ESCAPES[b] = 1;
for (const [b, c] of [[0x08, 'b'], [0x09, 't'], [0x0a, 'n'], [0x0c, 'f'], [0x0d, 'r'], [0x22, '"'], [0x5c, '\\']] as const) ESCAPES[b] = c.charCodeAt(0);

const HEX = '0123456789abcdef';
/** What a writer that handed its bytes over holds. */
const EMPTY = Buffer.alloc(0);
const QUOTE = 0x22;
const COMMA = 0x2c;
const COLON = 0x3a;
const BACKSLASH = 0x5c;

/** Per byte of a JSON string literal copied as it is: 0 copied, 1 its closing quote, 2 an escape, 3 not copied (a control character). */
const LITERAL = new Uint8Array(256);
for (let b = 0; b < 0x20; b++) LITERAL[b] = 3;
LITERAL[QUOTE] = 1;
LITERAL[BACKSLASH] = 2;
/** Escapes `JSON.stringify` writes as they are read: the short ones (not `\/`, not `\u`). */
const SHORT_ESCAPE = new Uint8Array(256);
for (const c of '"\\bfnrt') SHORT_ESCAPE[c.charCodeAt(0)] = 1;
/** Below this many bytes a plain loop copies faster than `Buffer.copy`. */
const NATIVE_COPY_MIN = 64;
/** Literals longer than this are left to the caller. */
const LITERAL_MAX = 4096;

export class JsonBytes {
  private buf: Buffer;
  /** `buf` for word writes. */
  private view: DataView;
  private source: Uint8Array;
  private sourceView: DataView;
  pos = 0;

  /** `size`: the bytes expected, room for them is made at once (more is made as needed). */
  constructor(size = 1 << 16) {
    // Every byte handed out is written: no zero fill; a buffer of its own (not the pool's), since it may be handed out whole.
    this.buf = Buffer.allocUnsafeSlow(size);
    this.view = viewOf(this.buf);
    this.source = this.buf;
    this.sourceView = this.view;
  }

  reset(): void {
    this.pos = 0;
  }

  /** The bytes written from `from` to `to`, copied into a buffer of their own. */
  copy(from: number, to: number): Uint8Array<ArrayBuffer> {
    const out = new Uint8Array(Buffer.allocUnsafeSlow(to - from).buffer, 0, to - from);
    this.buf.copy(out, 0, from, to);
    return out;
  }

  /**
   * The bytes written, handed over without a copy when they fill most of the buffer (else copied, so
   * that they do not hold the rest); nothing more may be written.
   */
  take(): Uint8Array<ArrayBuffer> {
    const { buf, pos } = this;
    if (2 * pos < buf.length) return this.copy(0, pos);
    this.buf = EMPTY;
    this.view = viewOf(EMPTY);
    return new Uint8Array(buf.buffer as ArrayBuffer, buf.byteOffset, pos);
  }

  private room(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const grown = Buffer.allocUnsafeSlow(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(grown, 0, 0, this.pos);
    this.buf = grown;
    this.view = viewOf(grown);
  }

  /** Byte `at` (written before) becomes the ASCII character `code`. */
  put(at: number, code: number): void {
    this.buf[at] = code;
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

  /** A non-negative safe integer's decimal digits, written without making its string. */
  digits(n: number): void {
    if (n >= 1e15) return this.ascii(String(n));
    let len = 1;
    for (let m = n; m >= 10; m = Math.floor(m / 10)) len++;
    this.room(len);
    const { buf } = this;
    let p = this.pos + len;
    this.pos = p;
    do {
      const q = Math.floor(n / 10);
      buf[--p] = 0x30 + n - q * 10;
      n = q;
    } while (n > 0);
  }

  /** Any JSON text made by `JSON.stringify`. */
  json(text: string): void {
    this.room(text.length * 3);
    this.pos += this.buf.write(text, this.pos, 'utf8');
  }

  /** Bytes of JSON text (UTF-8), written before. */
  bytes(src: Buffer, from = 0, to = src.length): void {
    this.room(to - from);
    if (to - from >= NATIVE_COPY_MIN) {
      this.pos += src.copy(this.buf, this.pos, from, to);
      return;
    }
    // `Buffer.copy` costs a view and its checks per call, more than a short loop (a scope's tail is mostly empty).
    const { buf } = this;
    let p = this.pos;
    for (let i = from; i < to; i++) buf[p++] = src[i] as number;
    this.pos = p;
  }

  /** The text `other` holds from its byte `from` on. */
  append(other: JsonBytes, from: number): void {
    this.bytes(other.buf, from, other.pos);
  }

  /** A JSON string of the UTF-8 bytes `src[from, to)`, escaped as `JSON.stringify` escapes them (the bytes are checked to be UTF-8 with the whole text). */
  string(src: Uint8Array, from: number, to: number): void {
    this.room((to - from) * 6 + 2);
    const { buf } = this;
    const out = this.view;
    const sv = this.viewOf(src);
    let p = this.pos;
    buf[p++] = QUOTE;
    let i = from;
    // Four bytes at a time, read and written as one word; a word with a byte to escape keeps the plain
    // bytes before its first such byte (the mask's lowest bit is exact) and goes on after that byte.
    while (i + 4 <= to) {
      const k = plainWord(sv, i, out, p);
      p += k;
      i += k;
      if (k === 4) continue;
      const b = src[i++] as number;
      p = escape(buf, p, b, ESCAPES[b] as number);
    }
    for (; i < to; i++) p = escaped(buf, p, src[i] as number);
    buf[p++] = QUOTE;
    this.pos = p;
  }

  /**
   * A member name after another member: `,"name":` for the bytes `src[from, to)` of a JSON string that
   * needs no escaping (no quote, backslash or control character; UTF-8, checked with the whole text),
   * copied a word at a time.
   */
  name(src: Uint8Array, from: number, to: number): void {
    this.room(to - from + 4);
    const { buf } = this;
    const out = this.view;
    const sv = this.viewOf(src);
    let p = this.pos;
    buf[p++] = COMMA;
    buf[p++] = QUOTE;
    let i = from;
    for (; i + 4 <= to; i += 4, p += 4) out.setInt32(p, sv.getInt32(i, true), true);
    for (; i < to; i++) buf[p++] = src[i] as number;
    buf[p++] = QUOTE;
    buf[p++] = COLON;
    this.pos = p;
  }

  /** A view of `src` for word reads, kept while the same bytes are read (a request is read field by field; the last one is held until the next). */
  private viewOf(src: Uint8Array): DataView {
    if (src !== this.source) {
      this.source = src;
      this.sourceView = new DataView(src.buffer, src.byteOffset, src.byteLength);
    }
    return this.sourceView;
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
   * The JSON string literal at `src[from]` (its opening quote) copied as it is, when it is escaped as
   * `JSON.stringify` escapes (short escapes only): the index past its closing quote, or -1 with nothing
   * written for any other literal (or one of more than a few KiB). `src` must be UTF-8 (checked whole
   * by the caller): `JSON.stringify` writes the characters of valid UTF-8 beyond ASCII as they are.
   */
  literal(src: Uint8Array, from: number): number {
    const end = Math.min(src.length, from + LITERAL_MAX);
    this.room(end - from + 2);
    const { buf } = this;
    const out = this.view;
    const sv = this.viewOf(src);
    let p = this.pos;
    buf[p++] = QUOTE;
    let i = from + 1;
    while (i < end) {
      // Four plain bytes at a time (one word, nothing to escape); a word with another byte keeps the
      // plain bytes before the first such byte, which is then looked at alone.
      if (i + 4 <= end) {
        const k = plainWord(sv, i, out, p);
        p += k;
        i += k;
        if (k === 4) continue;
      }
      const c = src[i] as number;
      const k = LITERAL[c];
      if (k === 0) {
        buf[p++] = c;
        i++;
        continue;
      }
      if (k === 1) {
        buf[p++] = QUOTE;
        this.pos = p;
        return i + 1;
      }
      if (k === 3 || SHORT_ESCAPE[src[i + 1] as number] !== 1) return -1;
      buf[p++] = c;
      buf[p++] = src[i + 1] as number;
      i += 2;
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

function viewOf(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * The high bit of each of the four bytes of `word` that must be escaped: below 0x20, a quote or a
 * backslash (bytes from 0x80 never are). The tests of a word for a byte below n and for a zero byte
 * (after an XOR) may also flag bytes above a flagged one (the borrow), but the lowest flagged byte is
 * always exact, for any n up to 0x80; 0 when no byte must be escaped.
 */
function escapeMask(word: number): number {
  const quote = word ^ 0x22222222;
  const backslash = word ^ 0x5c5c5c5c;
  return (((word - 0x20202020) & ~word) | ((quote - 0x01010101) & ~quote) | ((backslash - 0x01010101) & ~backslash)) & 0x80808080;
}

/**
 * Copies the four bytes at `src[i]` to `out[p]` (room made) as one word: how many of them lead before
 * the first that must be escaped (4: none must).
 */
function plainWord(src: DataView, i: number, out: DataView, p: number): number {
  const word = src.getInt32(i, true);
  out.setInt32(p, word, true);
  const mask = escapeMask(word);
  // The lowest flagged byte's index (little-endian).
  return mask === 0 ? 4 : (31 - Math.clz32(mask & -mask)) >> 3;
}

/** Writes byte `b` of a JSON string at `p`, escaped if it must be; the new position. */
function escaped(buf: Buffer, p: number, b: number): number {
  const e = ESCAPES[b] as number;
  if (e === 0) {
    buf[p] = b;
    return p + 1;
  }
  return escape(buf, p, b, e);
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
