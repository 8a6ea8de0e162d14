// JSON text written as UTF-8 bytes into one growing buffer, copying strings from the bytes they arrived
// in, so that a record becomes one JS string instead of one per field. Escapes exactly what
// `JSON.stringify` escapes in valid UTF-8 text: `"`, `\` and the control characters below U+0020.

/** Per byte: 0 copied as is, else the byte of its short escape (`\n`), or 1 for `\u00XX`. */
const ESCAPES = new Uint8Array(256);
for (let b = 0; b < 0x20; b++) ESCAPES[b] = 1;
for (const [b, c] of [[0x08, 'b'], [0x09, 't'], [0x0a, 'n'], [0x0c, 'f'], [0x0d, 'r'], [0x22, '"'], [0x5c, '\\']] as const) ESCAPES[b] = c.charCodeAt(0);

const HEX = '0123456789abcdef';
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

export class JsonBytes {
  private buf = Buffer.allocUnsafe(1 << 16);
  pos = 0;
  /** Bytes at or above 0x80 were copied since `reset` (the text may then need a UTF-8 check). */
  nonAscii = false;

  reset(): void {
    this.pos = 0;
    this.nonAscii = false;
  }

  /** The text written since `reset`. */
  text(): string {
    return this.buf.toString('utf8', 0, this.pos);
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
    this.room(text.length * 3);
    this.pos += this.buf.write(text, this.pos, 'utf8');
    this.nonAscii = true;
  }

  /** Bytes of JSON text, written before (`nonAscii`: some are at or above 0x80). */
  bytes(src: Buffer, nonAscii: boolean): void {
    this.room(src.length);
    this.pos += src.copy(this.buf, this.pos);
    if (nonAscii) this.nonAscii = true;
  }

  /** A JSON string of the UTF-8 bytes `src[from, to)`, escaped as `JSON.stringify` escapes them. */
  string(src: Uint8Array, from: number, to: number): void {
    this.room((to - from) * 6 + 2);
    const { buf } = this;
    let p = this.pos;
    let high = 0;
    buf[p++] = QUOTE;
    for (let i = from; i < to; i++) {
      const b = src[i] as number;
      const e = ESCAPES[b] as number;
      if (e === 0) {
        buf[p++] = b;
        high |= b;
      } else if (e !== 1) {
        buf[p++] = BACKSLASH;
        buf[p++] = e;
      } else {
        buf[p++] = BACKSLASH;
        buf[p++] = 0x75; // u
        buf[p++] = 0x30;
        buf[p++] = 0x30;
        buf[p++] = HEX.charCodeAt(b >> 4);
        buf[p++] = HEX.charCodeAt(b & 15);
      }
    }
    buf[p++] = QUOTE;
    this.pos = p;
    if (high >= 0x80) this.nonAscii = true;
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
