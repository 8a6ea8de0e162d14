// An OTLP/JSON `ExportLogsServiceRequest` read byte by byte into the flattened events of daemon-semantics
// §17.3, without `JSON.parse`'s object tree of the whole body, the schema walk over it and a
// `JSON.stringify` per record: strings are copied from the body into each record's text. It reads
// requests as exporters write them; anything it does not follow exactly (invalid UTF-8, a duplicate
// member, a value of the wrong type, an escaped member name, deep nesting, a syntax error) throws
// `UNCOMMON`, and the caller parses that request whole instead (`decodeJsonLogsByObject`), which says
// what is wrong. A record whose text cannot be written as it comes (an escaped or colliding attribute
// key, a kvlist body, an AnyValue of an unusual shape) is parsed by itself and flattened as objects.
// So both paths yield the same events; `test/protocol/otlp-logs-json.test.ts` checks that they do.
import { isUtf8 } from 'node:buffer';
import type { ByteLines } from '../decode/index.js';
import { JsonBytes } from './json-bytes.js';
import { anyValue, bodyOf, bytesHex, checkLogRecord, checkResource, checkScope, eventTail, eventText, idHex, intOf, resourceKeys } from './logs-object.js';
import type { EventTail } from './logs-object.js';
import { nanosToRfc3339 } from './otlp-time.js';
import { ANY_VALUE_MEMBERS, ARRAY_VALUE, AttributeKeys, BOOL_VALUE, BYTES_VALUE, DOUBLE_VALUE, INT_VALUE, KVLIST_VALUE, RecordLines, sameBytes, startRecord, STRING_VALUE, tailBytes, UNCOMMON } from './record-text.js';

/** Thrown (one object, no stack) where one record is left to objects. */
const BY_OBJECT: unique symbol = Symbol('record flattened as objects');

/** Nesting this reader follows; deeper requests are parsed whole. */
const MAX_DEPTH = 64;

const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
const QUOTE = 0x22;
const PLUS = 0x2b;
const COMMA = 0x2c;
const MINUS = 0x2d;
const DOT = 0x2e;
const SLASH = 0x2f;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
const COLON = 0x3a;
const UPPER_E = 0x45;
const LBRACKET = 0x5b;
const BACKSLASH = 0x5c;
const RBRACKET = 0x5d;
const LOWER_E = 0x65;
const LOWER_F = 0x66;
const LOWER_N = 0x6e;
const LOWER_T = 0x74;
const LOWER_U = 0x75;
const LBRACE = 0x7b;
const RBRACE = 0x7d;

/** Bytes that may follow a backslash (`u` then takes four hex digits). */
const ESCAPABLE = new Uint8Array(256);
for (const c of '"\\/bfnrtu') ESCAPABLE[c.charCodeAt(0)] = 1;
const HEX_DIGIT = new Uint8Array(256);
for (const c of '0123456789abcdefABCDEF') HEX_DIGIT[c.charCodeAt(0)] = 1;

function isDigit(c: number | undefined): boolean {
  return c !== undefined && c >= DIGIT_0 && c <= DIGIT_9;
}

/** A byte that continues a number's text after its integer digits. */
function isNumberByte(c: number | undefined): boolean {
  return isDigit(c) || c === DOT || c === LOWER_E || c === UPPER_E;
}

class JsonReader {
  pos = 0;
  /**
   * The last string read: its bytes between the quotes, whether it had escapes, whether its bytes are
   * what `JSON.stringify` writes for its value (no `\u` or `\/` escapes), whether they are all ASCII.
   */
  from = 0;
  to = 0;
  escaped = false;
  verbatim = true;
  ascii = true;

  constructor(readonly buf: Buffer) {}

  /** The next byte that is not whitespace, the reader moved to it; -1 at the end. */
  peek(): number {
    const { buf } = this;
    let p = this.pos;
    let c = buf[p];
    while (c === SPACE || c === LF || c === CR || c === TAB) c = buf[++p];
    this.pos = p;
    return c ?? -1;
  }

  /** Where the next value starts. */
  at(): number {
    this.peek();
    return this.pos;
  }

  eat(c: number): void {
    if (this.peek() !== c) throw UNCOMMON;
    this.pos++;
  }

  /** The bytes `text` follow at once (no whitespace before them): the reader moves past them. */
  follows(text: Uint8Array): boolean {
    const { buf, pos } = this;
    const n = text.length;
    if (pos + n > buf.length) return false;
    for (let i = 0; i < n; i++) if (buf[pos + i] !== text[i]) return false;
    this.pos = pos + n;
    return true;
  }

  /** Opens an object or array: false when it is empty (and closed). */
  enter(open: number, close: number): boolean {
    this.eat(open);
    if (this.peek() !== close) return true;
    this.pos++;
    return false;
  }

  /** After a member or element: true when another follows. */
  more(close: number): boolean {
    const c = this.peek();
    this.pos++;
    if (c === COMMA) return true;
    if (c === close) return false;
    throw UNCOMMON;
  }

  /** An object member's name and its colon; an escaped name is left to `JSON.parse`. */
  field(): void {
    this.string();
    if (this.escaped) throw UNCOMMON;
    this.eat(COLON);
  }

  /** The last string (unescaped) is `name`. */
  is(name: string): boolean {
    const n = name.length;
    if (this.to - this.from !== n) return false;
    const { buf, from } = this;
    for (let i = 0; i < n; i++) if (buf[from + i] !== name.charCodeAt(i)) return false;
    return true;
  }

  /** The index in `names` of the last string (unescaped), -1 for none. */
  which(names: readonly string[]): number {
    for (let i = 0; i < names.length; i++) if (this.is(names[i] as string)) return i;
    return -1;
  }

  /** A string: its bytes in `from`..`to`, escapes checked. */
  string(): void {
    if (this.peek() !== QUOTE) throw UNCOMMON;
    const { buf } = this;
    const end = buf.length;
    let p = this.pos + 1;
    const from = p;
    let escaped = false;
    let verbatim = true;
    let high = 0;
    for (;;) {
      if (p >= end) throw UNCOMMON;
      const c = buf[p] as number;
      if (c === QUOTE) break;
      if (c < SPACE) throw UNCOMMON;
      high |= c;
      if (c !== BACKSLASH) {
        p++;
        continue;
      }
      escaped = true;
      const e = buf[p + 1] as number;
      if (ESCAPABLE[e] !== 1) throw UNCOMMON;
      if (e === LOWER_U) {
        for (let i = 2; i < 6; i++) if (HEX_DIGIT[buf[p + i] as number] !== 1) throw UNCOMMON;
        verbatim = false;
        p += 6;
      } else {
        if (e === SLASH) verbatim = false;
        p += 2;
      }
    }
    this.from = from;
    this.to = p;
    this.escaped = escaped;
    this.verbatim = verbatim;
    this.ascii = high < 0x80;
    this.pos = p + 1;
  }

  /** The last string's value. */
  text(): string {
    return this.escaped ? (JSON.parse(this.buf.toString('utf8', this.from - 1, this.to + 1)) as string) : this.buf.toString('utf8', this.from, this.to);
  }

  /** A number, its grammar checked; its value as `JSON.parse` reads it. */
  number(): number {
    this.peek();
    const { buf } = this;
    const from = this.pos;
    let p = from;
    if (buf[p] === MINUS) p++;
    const digits = p;
    // A plain integer of up to 15 digits is exact as it is summed up.
    let value = 0;
    if (buf[p] === DIGIT_0) p++;
    else if (isDigit(buf[p])) while (isDigit(buf[p])) value = value * 10 + (buf[p++] as number) - DIGIT_0;
    else throw UNCOMMON;
    const c = buf[p];
    if (c !== DOT && c !== LOWER_E && c !== UPPER_E && p - digits <= 15) {
      this.pos = p;
      return digits === from ? value : -value;
    }
    if (buf[p] === DOT) {
      if (!isDigit(buf[++p])) throw UNCOMMON;
      while (isDigit(buf[p])) p++;
    }
    if (buf[p] === LOWER_E || buf[p] === UPPER_E) {
      p++;
      if (buf[p] === PLUS || buf[p] === MINUS) p++;
      if (!isDigit(buf[p])) throw UNCOMMON;
      while (isDigit(buf[p])) p++;
    }
    this.pos = p;
    return Number(buf.toString('latin1', from, p));
  }

  /** A string's or number's value, as `JSON.parse` gives it; undefined (nothing read) for another value. */
  scalar(): string | number | undefined {
    const c = this.peek();
    if (c === QUOTE) {
      this.string();
      return this.text();
    }
    return c === MINUS || isDigit(c) ? this.number() : undefined;
  }

  /**
   * Where the number starting here ends when it is an integer as `String` writes a safe one (an optional
   * minus, at most 15 digits, no leading zero), else -1; the reader does not move.
   */
  plainInteger(): number {
    const { buf } = this;
    const from = this.peek() === MINUS ? this.pos + 1 : this.pos;
    const first = buf[from];
    if (first === DIGIT_0) return isNumberByte(buf[from + 1]) || from > this.pos ? -1 : from + 1;
    let p = from;
    while (isDigit(buf[p])) p++;
    return p === from || p - from > 15 || isNumberByte(buf[p]) ? -1 : p;
  }

  /** `true`, `false` or `null`, whichever starts here. */
  literal(): boolean | null {
    const c = this.peek();
    const text = c === LOWER_T ? 'true' : c === LOWER_F ? 'false' : c === LOWER_N ? 'null' : '';
    if (text === '' || this.buf.toString('latin1', this.pos, this.pos + text.length) !== text) throw UNCOMMON;
    this.pos += text.length;
    return c === LOWER_N ? null : c === LOWER_T;
  }

  /** Any value, its syntax checked. */
  skip(depth: number): void {
    if (depth > MAX_DEPTH) throw UNCOMMON;
    const c = this.peek();
    if (c === QUOTE) this.string();
    else if (c === LBRACE) {
      if (this.enter(LBRACE, RBRACE)) {
        do {
          this.string();
          this.eat(COLON);
          this.skip(depth + 1);
        } while (this.more(RBRACE));
      }
    } else if (c === LBRACKET) {
      if (this.enter(LBRACKET, RBRACKET)) {
        do this.skip(depth + 1);
        while (this.more(RBRACKET));
      }
    } else if (c === LOWER_T || c === LOWER_F || c === LOWER_N) this.literal();
    else this.number();
  }

  /** Any value, as `JSON.parse` gives it (for the parts read as objects). */
  parsed(depth: number): unknown {
    const from = this.at();
    this.skip(depth);
    return JSON.parse(this.buf.toString('utf8', from, this.pos));
  }
}

/** The keys closing every event of a scope, as pairs (for records flattened as objects) and as text. */
interface Tail {
  readonly pairs: EventTail;
  readonly text: Buffer;
}

/** Where a record's attributes go aside when a member that gives a key before them follows them. */
const attributesScratch = new JsonBytes();

/** One JSON event text per LogRecord of an OTLP/JSON request, as UTF-8 lines; throws `UNCOMMON` to leave it to `JSON.parse`. */
export function flattenJsonLogs(body: Uint8Array): ByteLines {
  const buf = Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  // `JSON.parse` of the body decoded by a fatal TextDecoder, which would also drop a byte order mark.
  if (!isUtf8(buf)) throw UNCOMMON;
  const r = new JsonReader(buf);
  // An event's text is about half its record's (no member names or value objects).
  const events = new RecordLines(new JsonBytes((body.length >> 1) + (body.length >> 3) + 1024));
  const keys = new AttributeKeys(buf);
  const heads = new KeyValueHeads(buf);
  let seen = false;
  if (r.enter(LBRACE, RBRACE)) {
    do {
      r.field();
      if (!r.is('resourceLogs')) {
        r.skip(1);
        continue;
      }
      if (seen) throw UNCOMMON;
      seen = true;
      if (r.enter(LBRACKET, RBRACKET)) {
        do resourceLogs(r, events, keys, heads);
        while (r.more(RBRACKET));
      }
    } while (r.more(RBRACE));
  }
  if (r.peek() !== -1) throw UNCOMMON;
  // Strings are copied whole (between ASCII quotes) from the body checked above: the lines are UTF-8.
  return events.done(true);
}

/**
 * An object whose head member (`resource`, `scope`) applies to the items of another (`scopeLogs`,
 * `logRecords`), in either order: items are read as they come, and read again should the head follow them.
 */
function headAndItems(r: JsonReader, events: RecordLines, head: string, items: string, readHead: () => void, readItems: () => void): void {
  let headSeen = false;
  let itemsAt = -1;
  let itemsEvents = 0;
  let again = false;
  if (r.enter(LBRACE, RBRACE)) {
    do {
      r.field();
      if (r.is(head)) {
        if (headSeen) throw UNCOMMON;
        headSeen = true;
        readHead();
        again = itemsAt >= 0;
      } else if (r.is(items)) {
        if (itemsAt >= 0) throw UNCOMMON;
        itemsAt = r.at();
        itemsEvents = events.length;
        readItems();
      } else r.skip(1);
    } while (r.more(RBRACE));
  }
  if (!again) return;
  const end = r.pos;
  events.truncate(itemsEvents);
  r.pos = itemsAt;
  readItems();
  r.pos = end;
}

/** The elements of an array, each read by `read`. */
function elements(r: JsonReader, read: () => void): void {
  if (r.enter(LBRACKET, RBRACKET)) {
    do read();
    while (r.more(RBRACKET));
  }
}

function resourceLogs(r: JsonReader, events: RecordLines, keys: AttributeKeys, heads: KeyValueHeads): void {
  let resource: EventTail = [];
  headAndItems(
    r,
    events,
    'resource',
    'scopeLogs',
    () => {
      const value = r.parsed(1);
      if (!checkResource.Check(value)) throw UNCOMMON;
      resource = resourceKeys(value, 'hex');
    },
    () => elements(r, () => scopeLogs(r, resource, events, keys, heads)),
  );
}

function scopeLogs(r: JsonReader, resource: EventTail, events: RecordLines, keys: AttributeKeys, heads: KeyValueHeads): void {
  let tail = tailOf(resource, '', '');
  headAndItems(
    r,
    events,
    'scope',
    'logRecords',
    () => {
      const scope = r.parsed(2);
      if (!checkScope.Check(scope)) throw UNCOMMON;
      tail = tailOf(resource, scope.name ?? '', scope.version ?? '');
    },
    () => elements(r, () => record(r, tail, events, keys, heads)),
  );
}

function tailOf(resource: EventTail, name: string, version: string): Tail {
  const pairs = eventTail(resource, name, version);
  return { pairs, text: tailBytes(pairs) };
}

/** One record's event: its text written as it comes, else the record parsed and flattened as objects. */
function record(r: JsonReader, tail: Tail, events: RecordLines, keys: AttributeKeys, heads: KeyValueHeads): void {
  const start = r.at();
  try {
    recordText(r, tail.text, keys, heads, events);
    return;
  } catch (error) {
    if (error !== BY_OBJECT) throw error;
  }
  events.cancel();
  r.pos = start;
  const value = r.parsed(3);
  if (!checkLogRecord.Check(value)) throw UNCOMMON;
  events.line(eventText(value, tail.pairs, 'hex'));
}

/** An `Int64` member (a string or a finite number, as the schema says). */
function int64(r: JsonReader): string | number {
  const value = r.scalar();
  if (value === undefined || (typeof value === 'number' && !Number.isFinite(value))) throw UNCOMMON;
  return value;
}

/** A string member's value; another type throws `otherwise`. */
function stringMember(r: JsonReader, otherwise: typeof UNCOMMON | typeof BY_OBJECT = UNCOMMON): string {
  if (r.peek() !== QUOTE) throw otherwise;
  r.string();
  return r.text();
}

/** Record members, each a bit: read once each, a second one is left to `JSON.parse` (the later wins). */
const RECORD_MEMBERS = ['timeUnixNano', 'observedTimeUnixNano', 'severityNumber', 'severityText', 'body', 'attributes', 'traceId', 'spanId'] as const;
const TIME = 1;
const OBSERVED = 2;
const SEVERITY = 4;
const SEVERITY_TEXT = 8;
const BODY = 16;
const ATTRIBUTES = 32;
const TRACE_ID = 64;
const SPAN_ID = 128;

/** The bit of the record member just named, 0 for one §17.3 does not map. */
function recordMember(r: JsonReader): number {
  const i = r.which(RECORD_MEMBERS);
  return i < 0 ? 0 : 1 << i;
}

/** The members of a record that give the keys §17.3 puts before its attributes. */
const HEAD_MEMBERS = TIME | OBSERVED | SEVERITY | SEVERITY_TEXT | BODY | TRACE_ID | SPAN_ID;

/** The keys §17.3 puts first in a record's event, from its members (one instance, reset per record). */
class RecordHead {
  time: string | undefined;
  observed: string | undefined;
  severity = 0;
  severityText = '';
  /** The body's value as JSON text, when it has one. */
  body: string | undefined;
  traceId = '';
  spanId = '';

  reset(): void {
    this.time = undefined;
    this.observed = undefined;
    this.severity = 0;
    this.severityText = '';
    this.body = undefined;
    this.traceId = '';
    this.spanId = '';
  }

  /** The body member at `buf[from, to)`; a kvlist body (its entries at top level) is left to objects. */
  readBody(buf: Buffer, from: number, to: number): void {
    if (buf[from] !== LBRACE) return;
    const body = bodyOf(JSON.parse(buf.toString('utf8', from, to)), 'hex');
    if (body !== undefined && 'entries' in body) throw BY_OBJECT;
    if (body !== undefined) this.body = JSON.stringify(body.value);
  }

  /** Whether no key comes from these members. */
  empty(): boolean {
    return this.time === undefined && this.observed === undefined && this.severity === 0 && this.severityText === '' && this.body === undefined && this.traceId === '' && this.spanId === '';
  }

  /** Starts the record's text with `{` and these keys: false when it wrote none (the next key takes no comma). */
  write(lines: RecordLines): boolean {
    let wrote = startRecord(lines, this.time, this.observed, this.severity);
    const { w } = lines;
    const key = (literal: string, text: string): void => {
      w.ascii(wrote ? `,${literal}` : literal);
      w.json(text);
      wrote = true;
    };
    if (this.severityText !== '') key('"severity_text":', JSON.stringify(this.severityText));
    if (this.body !== undefined) key('"body":', this.body);
    if (this.traceId !== '') key('"trace_id":', JSON.stringify(this.traceId));
    if (this.spanId !== '') key('"span_id":', JSON.stringify(this.spanId));
    return wrote;
  }
}

/** Where a record's head is read (requests are read one at a time). */
const recordHead = new RecordHead();

/**
 * A record's event text into `lines`: the keys §17.3 puts first, its attributes in the order they came,
 * then `tail`. The attributes are written where they go, after the keys of the members read before them
 * (exporters send those first); a member giving a key that follows them moves them aside and back.
 * Throws `BY_OBJECT` where the text would differ from the object's (the record's text left unfinished).
 */
function recordText(r: JsonReader, tail: Buffer, keys: AttributeKeys, heads: KeyValueHeads, lines: RecordLines): void {
  if (r.peek() !== LBRACE) throw UNCOMMON;
  const head = recordHead;
  const { buf } = r;
  const { w } = lines;
  head.reset();
  keys.start();
  heads.next();
  let seen = 0;
  /** The members seen before the attributes. */
  let before = 0;
  /** Where the attributes start in `w` (each written with a comma before it), -1 before they are read. */
  let attributesFrom = -1;
  /** No key written before the attributes: the record's `{` takes the place of the first one's comma. */
  let bare = false;
  if (r.enter(LBRACE, RBRACE)) {
    do {
      r.field();
      const member = recordMember(r);
      if ((seen & member) !== 0) throw BY_OBJECT;
      seen |= member;
      switch (member) {
        case ATTRIBUTES:
          before = seen;
          bare = head.empty();
          if (bare) lines.begin();
          else head.write(lines);
          attributesFrom = w.pos;
          if (r.enter(LBRACKET, RBRACKET)) {
            let index = 0;
            do if (!compactKeyValue(r, w, keys, heads, index++)) keyValue(r, w, keys);
            while (r.more(RBRACKET));
          }
          break;
        case TIME:
          head.time = nanosToRfc3339(int64(r));
          break;
        case OBSERVED:
          head.observed = nanosToRfc3339(int64(r));
          break;
        case SEVERITY: {
          const c = r.peek();
          if (c !== MINUS && !isDigit(c)) throw UNCOMMON;
          const severity = r.number();
          if (!Number.isInteger(severity)) throw UNCOMMON;
          head.severity = severity;
          break;
        }
        case SEVERITY_TEXT:
          head.severityText = stringMember(r);
          break;
        case BODY: {
          const from = r.at();
          r.skip(4);
          head.readBody(buf, from, r.pos);
          break;
        }
        case TRACE_ID:
          head.traceId = idHex(stringMember(r), 'hex');
          break;
        case SPAN_ID:
          head.spanId = idHex(stringMember(r), 'hex');
          break;
        default:
          r.skip(4);
      }
    } while (r.more(RBRACE));
  }
  if (!keys.plain()) throw BY_OBJECT;
  let first: boolean;
  if (attributesFrom < 0) first = !head.write(lines);
  else if ((seen & ~before & HEAD_MEMBERS) !== 0) {
    // A key before the attributes came after them: they go aside while the keys are written.
    const aside = attributesScratch;
    aside.reset();
    aside.append(w, attributesFrom);
    lines.rewind();
    first = !head.write(lines);
    if (aside.pos > 0) {
      w.append(aside, first ? 1 : 0);
      first = false;
    }
  } else if (!bare) first = false;
  else {
    first = w.pos === attributesFrom;
    if (first) w.char(LBRACE);
    else w.put(attributesFrom, LBRACE);
  }
  // The tail starts with a comma; a record with no key before it drops that.
  w.bytes(tail, first && tail.length > 0 ? 1 : 0);
  w.char(RBRACE);
  lines.end();
}

const ascii = (text: string): Uint8Array => Buffer.from(text, 'latin1');
const KEY_OPEN = ascii('{"key":"');
const VALUE_OPEN = ascii(',"value":{"');
/** The rest of each AnyValue member's name after its first letter, with the colon. */
const MEMBER_REST = ANY_VALUE_MEMBERS.map((name) => ascii(`${name.slice(1)}":`));
/** AnyValue members by their first letter (`b`: bool, else bytes). */
const MEMBER_BY_LETTER = new Uint8Array(128);
for (const member of [STRING_VALUE, INT_VALUE, DOUBLE_VALUE, ARRAY_VALUE, KVLIST_VALUE, BOOL_VALUE]) MEMBER_BY_LETTER[(ANY_VALUE_MEMBERS[member] as string).charCodeAt(0)] = member;

/** Numbers kept per head by `KeyValueHeads`. */
const HEAD_FIELDS = 5;

/**
 * The heads of the compact KeyValues read last at each index of a record's attributes
 * (`{"key":"k","value":{"stringValue":`), as spans of the request body with their member and key
 * length. The records of an export mostly repeat their keys in the same order, so a head is matched
 * against the previous record's bytes a word at a time instead of read again.
 */
class KeyValueHeads {
  /** Per attribute index: where the head lies, its length, its member, its key's length, the record that read it last. */
  private readonly heads: number[] = [];
  private readonly view: DataView;
  /** The record being read (counted from 1). */
  private record = 0;
  /** The record that read the head last matched before this one. */
  private previous = 0;

  constructor(private readonly buf: Buffer) {
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  }

  /** A new record. */
  next(): void {
    this.record++;
  }

  /** The member of the head at `index` when the bytes at `from` repeat it (now read by this record), else 0. */
  match(from: number, index: number): number {
    const k = HEAD_FIELDS * index;
    const { heads } = this;
    if (k >= heads.length) return 0;
    const at = heads[k] as number;
    const to = from + (heads[k + 1] as number);
    if (to > this.buf.length || !sameBytes(this.buf, this.view, at, at + (heads[k + 1] as number), from, to)) return 0;
    this.previous = heads[k + 4] as number;
    heads[k + 4] = this.record;
    return heads[k + 2] as number;
  }

  /** The record before this one read the head last matched: both have the same key at its index. */
  repeated(): boolean {
    return this.previous === this.record - 1;
  }

  length(index: number): number {
    return this.heads[HEAD_FIELDS * index + 1] as number;
  }

  keyLength(index: number): number {
    return this.heads[HEAD_FIELDS * index + 3] as number;
  }

  note(index: number, from: number, length: number, member: number, keyLength: number): void {
    const k = HEAD_FIELDS * index;
    const { heads } = this;
    // Indices come in order from 0: a new one is pushed, an old one overwritten.
    heads[k] = from;
    heads[k + 1] = length;
    heads[k + 2] = member;
    heads[k + 3] = keyLength;
    heads[k + 4] = this.record;
  }
}

/**
 * A KeyValue as `JSON.stringify` writes it (`{"key":"k","value":{"stringValue":…}}`), written as
 * `keyValue` writes it; false, with nothing read or written, for any other shape (read by `keyValue`).
 * Its head is matched as the previous record's head at `index` or read in place (member names
 * matched as bytes instead of read as strings and compared name by name).
 */
function compactKeyValue(r: JsonReader, w: JsonBytes, keys: AttributeKeys, heads: KeyValueHeads, index: number): boolean {
  const start = r.pos;
  const written = w.pos;
  const keyFrom = start + KEY_OPEN.length;
  let keyTo: number;
  let member = heads.match(start, index);
  const repeated = member !== 0 && heads.repeated();
  if (member !== 0) {
    keyTo = keyFrom + heads.keyLength(index);
    r.pos = start + heads.length(index);
  } else {
    member = compactHead(r);
    if (member === 0) {
      r.pos = start;
      return false;
    }
    keyTo = r.to;
    heads.note(index, start, r.pos - start, member, keyTo - keyFrom);
  }
  w.name(r.buf, keyFrom, keyTo);
  writeMember(r, w, member);
  const { buf, pos } = r;
  if (buf[pos] === RBRACE && buf[pos + 1] === RBRACE) {
    r.pos = pos + 2;
    if (repeated) keys.repeat(keyFrom, keyTo);
    else keys.add(keyFrom, keyTo);
    return true;
  }
  r.pos = start;
  w.pos = written;
  return false;
}

/** The head of a compact KeyValue (up to its value's member name and colon): the member (the key in `r.from`..`r.to`), or 0 for another shape. */
function compactHead(r: JsonReader): number {
  if (!r.follows(KEY_OPEN)) return 0;
  r.pos--;
  r.string();
  if (r.escaped || !r.follows(VALUE_OPEN)) return 0;
  let member = MEMBER_BY_LETTER[r.buf[r.pos] as number] ?? 0;
  if (member === BOOL_VALUE && r.buf[r.pos + 1] === 0x79) member = BYTES_VALUE;
  if (member === 0) return 0;
  r.pos++;
  return r.follows(MEMBER_REST[member] as Uint8Array) ? member : 0;
}

/** A KeyValue of a record's attributes, written to `w` as `,"key":value`, its key noted in `keys`. */
function keyValue(r: JsonReader, w: JsonBytes, keys: AttributeKeys): void {
  if (r.peek() !== LBRACE) throw UNCOMMON;
  let keyFrom = -1;
  let keyTo = -1;
  let hasValue = false;
  if (r.enter(LBRACE, RBRACE)) {
    do {
      r.field();
      if (r.is('key')) {
        if (keyFrom >= 0) throw BY_OBJECT;
        if (r.peek() !== QUOTE) throw UNCOMMON;
        r.string();
        if (r.escaped) throw BY_OBJECT;
        keyFrom = r.from;
        keyTo = r.to;
      } else if (r.is('value')) {
        // A value before its key, a second one, or one that is not an object: as objects.
        if (hasValue || keyFrom < 0 || r.peek() !== LBRACE) throw BY_OBJECT;
        hasValue = true;
        w.name(r.buf, keyFrom, keyTo);
        writeAnyValue(r, w);
      } else r.skip(5);
    } while (r.more(RBRACE));
  }
  if (keyFrom < 0) throw UNCOMMON;
  if (!hasValue) throw BY_OBJECT;
  keys.add(keyFrom, keyTo);
}

/** The AnyValue member just named, 0 for none (an empty name included). */
function memberOf(r: JsonReader): number {
  return Math.max(r.which(ANY_VALUE_MEMBERS), 0);
}

/** An AnyValue (an object) written as `anyValue` maps it, when it has one member of the type §17.3 reads; else `BY_OBJECT`. */
function writeAnyValue(r: JsonReader, w: JsonBytes): void {
  let kind = 0;
  if (r.enter(LBRACE, RBRACE)) {
    do {
      r.field();
      const member = memberOf(r);
      if (member === 0) {
        r.skip(6);
        continue;
      }
      if (kind !== 0) throw BY_OBJECT;
      kind = member;
      writeMember(r, w, member);
    } while (r.more(RBRACE));
  }
  if (kind === 0) w.ascii('null');
}

function writeMember(r: JsonReader, w: JsonBytes, member: number): void {
  switch (member) {
    case STRING_VALUE: {
      if (r.peek() !== QUOTE) throw BY_OBJECT;
      // Most are copied as they are, read once.
      const next = w.literal(r.buf, r.pos);
      if (next >= 0) {
        r.pos = next;
        return;
      }
      r.string();
      if (!r.verbatim) w.json(JSON.stringify(r.text()));
      else if (r.ascii) w.quoted(r.buf, r.from, r.to);
      else if (!r.escaped) w.string(r.buf, r.from, r.to);
      else w.json(r.buf.toString('utf8', r.from - 1, r.to + 1));
      return;
    }
    case BOOL_VALUE: {
      const c = r.peek();
      if (c !== LOWER_T && c !== LOWER_F) throw BY_OBJECT;
      w.ascii(String(r.literal()));
      return;
    }
    case INT_VALUE:
    case DOUBLE_VALUE: {
      // A plain integer (the common int) is its own text: copied.
      const end = member === INT_VALUE ? r.plainInteger() : -1;
      if (end >= 0) {
        w.bytes(r.buf, r.pos, end);
        r.pos = end;
        return;
      }
      const value = r.scalar();
      if (value === undefined) throw BY_OBJECT;
      if (member === INT_VALUE) {
        const n = intOf(value);
        w.ascii(typeof n === 'string' ? `"${n}"` : String(n));
      } else {
        const n = Number(value);
        w.ascii(Number.isFinite(n) ? String(n) : 'null');
      }
      return;
    }
    case ARRAY_VALUE:
    case KVLIST_VALUE:
      if (r.peek() !== LBRACE) throw BY_OBJECT;
      w.json(JSON.stringify(anyValue({ [ANY_VALUE_MEMBERS[member] as string]: r.parsed(7) }, 'hex')));
      return;
    default:
      w.ascii(`"${bytesHex(stringMember(r, BY_OBJECT))}"`);
  }
}

