// A protobuf `ExportLogsServiceRequest` read straight from its bytes into the flattened events of
// daemon-semantics §17.3, without protobufjs' message and plain-object trees (an order of magnitude
// less work per record). It reads only the canonical encoding collectors send; anything else (a wire
// type it does not expect, a repeated singular message, a long varint, invalid UTF-8, deep nesting, a
// truncation) throws `UNCOMMON`, and the caller decodes that request with
// protobufjs instead, which knows every corner of the format and says what is wrong. So both paths
// yield the same events; `test/protocol/otlp-logs-wire.test.ts` checks that they do.
import type { ByteLines } from '../decode/index.js';
import { JsonBytes } from './json-bytes.js';
import { eventTail } from './logs-object.js';
import { nanosToRfc3339 } from './otlp-time.js';
import { ARRAY_VALUE, AttributeKeys, BOOL_VALUE, BYTES_VALUE, DOUBLE_VALUE, INT_VALUE, KVLIST_VALUE, RecordLines, startRecord, STRING_VALUE, tailBytes, UNCOMMON } from './record-text.js';


const WIRE_VARINT = 0;
const WIRE_FIXED64 = 1;
const WIRE_LEN = 2;
const WIRE_FIXED32 = 5;
/** The tags of fields 1 and 2 as length-delimited. */
const TAG_1_LEN = (1 << 3) | WIRE_LEN;
const TAG_2_LEN = (2 << 3) | WIRE_LEN;

/**
 * Nesting of AnyValues this reader follows: at most 3 message levels each, well inside the 100 of
 * protobufjs, beyond which it answers an error.
 */
const MAX_DEPTH = 16;

/** The wire type of each AnyValue member (by field number). */
const MEMBER_WIRE = [-1, WIRE_LEN, WIRE_VARINT, WIRE_VARINT, WIRE_FIXED64, WIRE_LEN, WIRE_LEN, WIRE_LEN];

class WireReader {
  pos = 0;
  /** The AnyValue member the last `member` located (0: none), and its payload's bytes. */
  kind = 0;
  from = 0;
  to = 0;

  constructor(readonly buf: Buffer) {}

  /** A varint of at most 7 bytes (49 bits, exact as a double); longer ones are left to protobufjs. */
  varint(end: number): number {
    // Most are one byte (tags, short lengths): a path small enough to inline.
    const p = this.pos;
    if (p < end) {
      const b = this.buf[p] as number;
      if (b < 0x80) {
        this.pos = p + 1;
        return b;
      }
    }
    return this.longVarint(end);
  }

  private longVarint(end: number): number {
    const { buf } = this;
    let value = 0;
    let scale = 1;
    for (let i = 0; i < 7; i++) {
      if (this.pos >= end) throw UNCOMMON;
      const b = buf[this.pos++] as number;
      value += (b & 0x7f) * scale;
      if (b < 0x80) return value;
      scale *= 0x80;
    }
    throw UNCOMMON;
  }

  /** The end of a length-delimited field starting here (within `end`). */
  sub(end: number): number {
    const len = this.varint(end);
    const to = this.pos + len;
    if (to > end) throw UNCOMMON;
    return to;
  }

  string(end: number): string {
    const to = this.sub(end);
    const text = this.buf.toString('utf8', this.pos, to);
    // Node replaces invalid UTF-8 with U+FFFD, where protobufjs rejects the request.
    if (text.includes('\uFFFD')) throw UNCOMMON;
    this.pos = to;
    return text;
  }

  /** Skips a field this reader does not map; the wire types proto3 fields use only. */
  skip(wire: number, end: number): void {
    if (wire === WIRE_VARINT) this.varint(end);
    else if (wire === WIRE_LEN) this.pos = this.sub(end);
    else if (wire === WIRE_FIXED64) this.pos += 8;
    else if (wire === WIRE_FIXED32) this.pos += 4;
    else throw UNCOMMON;
    if (this.pos > end) throw UNCOMMON;
  }

  /** The next field's tag, checked to be a field protobufjs would read as this reader does. */
  tag(end: number): number {
    const tag = this.varint(end);
    if (tag >>> 3 === 0) throw UNCOMMON;
    return tag;
  }

  done(end: number): void {
    if (this.pos !== end) throw UNCOMMON;
  }

  /** A nanosecond fixed64, exact; 0 reads as absent. */
  nanos(end: number): string | undefined {
    if (this.pos + 8 > end) throw UNCOMMON;
    const lo = this.buf.readUInt32LE(this.pos);
    const hi = this.buf.readUInt32LE(this.pos + 4);
    this.pos += 8;
    if (lo === 0 && hi === 0) return undefined;
    return nanosToRfc3339((BigInt(hi) << 32n) | BigInt(lo));
  }

  /**
   * Locates the one member of the AnyValue ending at `end` (§17.3): its field number in `kind` (0:
   * none) and its payload in `from`..`to`, checked to have the member's wire type; fields past the
   * members are skipped. A second member is left to protobufjs, which keeps both and maps by rank.
   */
  member(end: number, depth: number): void {
    if (depth > MAX_DEPTH) throw UNCOMMON;
    let kind = 0;
    while (this.pos < end) {
      const tag = this.tag(end);
      const field = tag >>> 3;
      const wire = tag & 7;
      if (field > 7) {
        this.skip(wire, end);
        continue;
      }
      if (kind !== 0 || wire !== MEMBER_WIRE[field]) throw UNCOMMON;
      kind = field;
      if (wire === WIRE_LEN) {
        const to = this.sub(end);
        this.from = this.pos;
        this.pos = to;
      } else {
        this.from = this.pos;
        if (wire === WIRE_VARINT) this.varint(end);
        else if ((this.pos += 8) > end) throw UNCOMMON;
      }
      this.to = this.pos;
    }
    this.done(end);
    this.kind = kind;
  }

  /** An AnyValue as §17.3 maps it (`kind` says which member it had); an empty one is null. */
  anyValue(end: number, depth: number): unknown {
    this.member(end, depth);
    const { kind, from, to, buf } = this;
    switch (kind) {
      case STRING_VALUE:
        return utf8(buf, from, to);
      case BOOL_VALUE:
      case INT_VALUE: {
        this.pos = from;
        const n = this.varint(to);
        this.pos = end;
        // bool and int32 are the low 32 bits of the varint, as protobufjs reads them.
        return kind === BOOL_VALUE ? (n | 0) !== 0 : n;
      }
      case DOUBLE_VALUE:
        return finiteOrNull(buf.readDoubleLE(from));
      case ARRAY_VALUE:
      case KVLIST_VALUE: {
        this.pos = from;
        const value = kind === ARRAY_VALUE ? this.arrayValue(to, depth) : this.keyValues(to, 1, {}, depth);
        // The nested values moved the reader and named their own members.
        this.pos = end;
        this.kind = kind;
        return value;
      }
      case BYTES_VALUE:
        return buf.toString('hex', from, to);
      default:
        return null;
    }
  }

  private arrayValue(end: number, depth: number): unknown[] {
    const values: unknown[] = [];
    while (this.pos < end) {
      const tag = this.tag(end);
      if (tag === ((1 << 3) | WIRE_LEN)) values.push(this.anyValue(this.sub(end), depth + 1));
      else if (tag >>> 3 === 1) throw UNCOMMON;
      else this.skip(tag & 7, end);
    }
    this.done(end);
    return values;
  }

  /**
   * The KeyValues of field `field` of a message (KeyValueList, Resource, LogRecord, scope) assigned
   * into `into` in wire order, as §17.3 assigns attribute objects (later keys win). Pairs without a
   * value or with an empty key are skipped, as protobufjs leaves them.
   */
  keyValues<T extends Record<string, unknown>>(end: number, field: number, into: T, depth: number): T {
    while (this.pos < end) {
      const tag = this.tag(end);
      if (tag === ((field << 3) | WIRE_LEN)) this.keyValue(this.sub(end), into, depth);
      else if (tag >>> 3 === field) throw UNCOMMON;
      else this.skip(tag & 7, end);
    }
    this.done(end);
    return into;
  }

  /** One KeyValue into `into`. */
  keyValue(end: number, into: Record<string, unknown>, depth: number): void {
    let key = '';
    let value: unknown;
    let hasValue = false;
    while (this.pos < end) {
      const tag = this.tag(end);
      if (tag === ((1 << 3) | WIRE_LEN)) key = this.string(end);
      else if (tag === ((2 << 3) | WIRE_LEN)) {
        // A repeated singular message is merged by protobufjs.
        if (hasValue) throw UNCOMMON;
        hasValue = true;
        value = this.anyValue(this.sub(end), depth + 1);
      } else if (tag >>> 3 <= 2) throw UNCOMMON;
      else this.skip(tag & 7, end);
    }
    this.done(end);
    if (key === '__proto__') throw UNCOMMON;
    if (key !== '' && hasValue) into[key] = value;
  }
}

/** Where a message's fields lie, read before the fields they apply to (wire order is free). */
interface Span {
  readonly from: number;
  readonly to: number;
}

/** One JSON event text per LogRecord of a protobuf request, as UTF-8 lines; throws `UNCOMMON` to leave it to protobufjs. */
export function flattenProtobufLogs(body: Uint8Array): ByteLines {
  const r = new WireReader(Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength));
  // An event's text is about as long as its record (strings as they are, a quote or comma per tag and length).
  const events = new RecordLines(new JsonBytes(body.length + (body.length >> 3) + 1024));
  const keys = new AttributeKeys(r.buf);
  const end = body.length;
  while (r.pos < end) {
    const tag = r.tag(end);
    if (tag === ((1 << 3) | WIRE_LEN)) resourceLogs(r, r.sub(end), events, keys);
    else if (tag >>> 3 === 1) throw UNCOMMON;
    else r.skip(tag & 7, end);
  }
  return events.done();
}

/**
 * ResourceLogs and ScopeLogs share a layout: a singular head (resource, scope) as field 1, the repeated
 * items (ScopeLogs, LogRecords) as field 2, and a schema URL as field 3.
 */
function headAndItems(r: WireReader, from: number, end: number): { head: Span | undefined; items: number[] } {
  r.pos = from;
  let head: Span | undefined;
  // The items' spans, flat (from, to, from, to, …): one array however many records.
  const items: number[] = [];
  while (r.pos < end) {
    const tag = r.tag(end);
    const field = tag >>> 3;
    if (tag === ((1 << 3) | WIRE_LEN)) {
      if (head !== undefined) throw UNCOMMON;
      head = span(r, end);
    } else if (tag === ((2 << 3) | WIRE_LEN)) {
      const to = r.sub(end);
      items.push(r.pos, to);
      r.pos = to;
    }
    else if (tag === ((3 << 3) | WIRE_LEN)) r.string(end); // not mapped, but protobufjs rejects bad UTF-8 in any string
    else if (field <= 3) throw UNCOMMON;
    else r.skip(tag & 7, end);
  }
  r.done(end);
  return { head, items };
}

function resourceLogs(r: WireReader, end: number, events: RecordLines, keys: AttributeKeys): void {
  const { head: resource, items: scopes } = headAndItems(r, r.pos, end);
  const prefixed: [string, unknown][] = [];
  if (resource !== undefined) {
    r.pos = resource.from;
    const attributes = r.keyValues(resource.to, 1, {} as Record<string, unknown>, 0);
    for (const [key, value] of Object.entries(attributes)) prefixed.push([`resource.${key}`, value]);
  }
  for (let i = 0; i < scopes.length; i += 2) scopeLogs(r, scopes[i] as number, scopes[i + 1] as number, prefixed, events, keys);
  r.pos = end;
}

/** The span of the length-delimited field at the reader, which moves past it. */
function span(r: WireReader, end: number): Span {
  const to = r.sub(end);
  const from = r.pos;
  r.pos = to;
  return { from, to };
}

function scopeLogs(r: WireReader, from: number, to: number, resource: readonly [string, unknown][], events: RecordLines, keys: AttributeKeys): void {
  const { head: scope, items: records } = headAndItems(r, from, to);
  const { name, version } = scope === undefined ? { name: '', version: '' } : instrumentationScope(r, scope);
  const tail = eventTail(resource, name, version);
  const tailText = tailBytes(tail);
  for (let i = 0; i < records.length; i += 2) {
    r.pos = records[i] as number;
    const fields = recordFields(r, records[i + 1] as number);
    if (recordText(r, fields, tailText, keys, events)) continue;
    events.cancel();
    const event = recordEvent(r, fields);
    for (const [key, value] of tail) event[key] = value;
    events.line(JSON.stringify(event));
  }
}

function instrumentationScope(r: WireReader, at: Span): { name: string; version: string } {
  r.pos = at.from;
  const end = at.to;
  let name = '';
  let version = '';
  while (r.pos < end) {
    const tag = r.tag(end);
    const field = tag >>> 3;
    if (tag === ((1 << 3) | WIRE_LEN)) name = r.string(end);
    else if (tag === ((2 << 3) | WIRE_LEN)) version = r.string(end);
    // Its attributes are not mapped, but protobufjs would reject a malformed one.
    else if (tag === ((3 << 3) | WIRE_LEN)) r.keyValue(r.sub(end), {}, 0);
    else if (tag === ((4 << 3) | WIRE_VARINT)) r.varint(end);
    else if (field <= 4) throw UNCOMMON;
    else r.skip(tag & 7, end);
  }
  r.done(end);
  return { name, version };
}

/** A LogRecord's fields as read, in any wire order; strings and bytes as spans of the body. */
interface RecordFields {
  time: string | undefined;
  observed: string | undefined;
  severity: number;
  severityText: Span | undefined;
  body: Span | undefined;
  traceId: Span | undefined;
  spanId: Span | undefined;
  /** The attribute KeyValues' spans, flat: from, to, from, to, … */
  readonly attributes: number[];
}

/** The fields of the record being read: one object for all (decoding is synchronous, a record is written before the next is read). */
const fields: RecordFields = { time: undefined, observed: undefined, severity: 0, severityText: undefined, body: undefined, traceId: undefined, spanId: undefined, attributes: [] };

/** Later fields win; an empty string or id reads as absent, as protobufjs leaves it. */
function recordFields(r: WireReader, end: number): RecordFields {
  const f = fields;
  f.time = f.observed = f.severityText = f.body = f.traceId = f.spanId = undefined;
  f.severity = 0;
  f.attributes.length = 0;
  while (r.pos < end) {
    const tag = r.tag(end);
    switch (tag) {
      case (1 << 3) | WIRE_FIXED64:
        f.time = r.nanos(end);
        break;
      case (11 << 3) | WIRE_FIXED64:
        f.observed = r.nanos(end);
        break;
      case (2 << 3) | WIRE_VARINT:
        // int32: the low 32 bits, signed.
        f.severity = r.varint(end) | 0;
        break;
      case (3 << 3) | WIRE_LEN:
        f.severityText = nonEmpty(span(r, end));
        break;
      case (5 << 3) | WIRE_LEN:
        if (f.body !== undefined) throw UNCOMMON;
        f.body = span(r, end);
        break;
      case (6 << 3) | WIRE_LEN: {
        const to = r.sub(end);
        f.attributes.push(r.pos, to);
        r.pos = to;
        break;
      }
      case (7 << 3) | WIRE_VARINT:
        r.varint(end);
        break;
      case (8 << 3) | WIRE_FIXED32:
        r.skip(WIRE_FIXED32, end);
        break;
      case (9 << 3) | WIRE_LEN:
        f.traceId = nonEmpty(span(r, end));
        break;
      case (10 << 3) | WIRE_LEN:
        f.spanId = nonEmpty(span(r, end));
        break;
      case (12 << 3) | WIRE_LEN:
        r.string(end); // not mapped, but protobufjs rejects bad UTF-8 in any string
        break;
      default:
        if (tag >>> 3 <= 12) throw UNCOMMON;
        r.skip(tag & 7, end);
    }
  }
  r.done(end);
  return f;
}

function nonEmpty(s: Span): Span | undefined {
  return s.to > s.from ? s : undefined;
}

/** A LogRecord's own keys as an object, in the key order of §17.3 (resource and scope keys follow). */
function recordEvent(r: WireReader, f: RecordFields): Record<string, unknown> {
  const { buf } = r;
  const event: Record<string, unknown> = {};
  if (f.time !== undefined) event['timestamp'] = f.time;
  if (f.observed !== undefined) event['observed_timestamp'] = f.observed;
  if (f.severity !== 0) event['severity_number'] = f.severity;
  if (f.severityText !== undefined) event['severity_text'] = utf8(buf, f.severityText.from, f.severityText.to);
  if (f.body !== undefined) {
    r.pos = f.body.from;
    const value = r.anyValue(f.body.to, 0);
    if (r.kind === KVLIST_VALUE) Object.assign(event, value);
    else if (r.kind !== 0) event['body'] = value;
  }
  if (f.traceId !== undefined) event['trace_id'] = buf.toString('hex', f.traceId.from, f.traceId.to);
  if (f.spanId !== undefined) event['span_id'] = buf.toString('hex', f.spanId.from, f.spanId.to);
  for (let i = 0; i < f.attributes.length; i += 2) {
    r.pos = f.attributes[i] as number;
    r.keyValue(f.attributes[i + 1] as number, event, 0);
  }
  return event;
}

/** A string's bytes, checked as `WireReader.string` checks. */
function utf8(buf: Buffer, from: number, to: number): string {
  const text = buf.toString('utf8', from, to);
  if (text.includes('\uFFFD')) throw UNCOMMON;
  return text;
}

/** A double as §17.3 maps it: NaN and the infinities have no JSON number. */
function finiteOrNull(n: number): number | null {
  return Number.isFinite(n) ? n : null;
}

const pair: Pair = { keyFrom: -1, keyTo: -1, valueFrom: -1, valueTo: -1 };

/**
 * A record's event text written straight from the wire into `lines`: its own keys, its attributes in
 * wire order, then `tail` (the resource and scope keys). Only when no key can collide with another
 * (later keys would overwrite earlier ones in place) or be an array index (an object lists those
 * first): else false (the record's text is left unfinished), and the record goes through an object
 * like `recordEvent`.
 */
function recordText(r: WireReader, f: RecordFields, tail: Buffer, keys: AttributeKeys, lines: RecordLines): boolean {
  const { buf } = r;
  const { w } = lines;
  let first = !startRecord(lines, f.time, f.observed, f.severity);
  const key = (literal: string): void => {
    w.ascii(first ? literal : `,${literal}`);
    first = false;
  };
  if (f.severityText !== undefined) {
    key('"severity_text":');
    w.string(buf, f.severityText.from, f.severityText.to);
  }
  if (f.body !== undefined) {
    r.pos = f.body.from;
    const value = r.anyValue(f.body.to, 0);
    if (r.kind === KVLIST_VALUE) return false;
    if (r.kind !== 0) {
      key('"body":');
      w.json(JSON.stringify(value));
    }
  }
  if (f.traceId !== undefined) {
    key('"trace_id":');
    w.hex(buf, f.traceId.from, f.traceId.to);
  }
  if (f.spanId !== undefined) {
    key('"span_id":');
    w.hex(buf, f.spanId.from, f.spanId.to);
  }
  keys.start();
  const { attributes } = f;
  for (let i = 0; i < attributes.length; i += 2) {
    if (!keyValueSpans(r, attributes[i] as number, attributes[i + 1] as number, pair)) continue;
    keys.add(pair.keyFrom, pair.keyTo);
    if (!first) w.char(0x2c);
    first = false;
    w.string(buf, pair.keyFrom, pair.keyTo);
    w.char(0x3a);
    writeValue(r, w, pair.valueFrom, pair.valueTo, 1);
  }
  if (!keys.plain()) return false;
  // The tail starts with a comma; a record with no key before it drops that.
  w.bytes(tail, first && tail.length > 0 ? 1 : 0);
  w.char(0x7d);
  lines.end();
  return true;
}

/**
 * Reads a KeyValue's key and value spans into `pair`; false for a pair §17.3 skips (empty key, no
 * value), its value checked all the same.
 */
function keyValueSpans(r: WireReader, from: number, end: number, pair: Pair): boolean {
  // The shape encoders write, checked byte by byte without the field loop: a key (field 1) and a value
  // (field 2), each with a one-byte length, filling the KeyValue.
  const { buf } = r;
  const keyLength = buf[from + 1] as number;
  const keyTo = from + 2 + keyLength;
  const valueLength = buf[keyTo + 1] as number;
  if (buf[from] === TAG_1_LEN && keyLength > 0 && keyLength < 0x80 && buf[keyTo] === TAG_2_LEN && valueLength < 0x80 && keyTo + 2 + valueLength === end) {
    pair.keyFrom = from + 2;
    pair.keyTo = keyTo;
    pair.valueFrom = keyTo + 2;
    pair.valueTo = end;
    return true;
  }
  r.pos = from;
  pair.keyFrom = pair.keyTo = pair.valueFrom = pair.valueTo = -1;
  while (r.pos < end) {
    const tag = r.tag(end);
    if (tag === ((1 << 3) | WIRE_LEN)) {
      pair.keyTo = r.sub(end);
      pair.keyFrom = r.pos;
      r.pos = pair.keyTo;
    } else if (tag === ((2 << 3) | WIRE_LEN)) {
      if (pair.valueFrom >= 0) throw UNCOMMON;
      pair.valueTo = r.sub(end);
      pair.valueFrom = r.pos;
      r.pos = pair.valueTo;
    } else if (tag >>> 3 <= 2) throw UNCOMMON;
    else r.skip(tag & 7, end);
  }
  r.done(end);
  if (pair.keyTo > pair.keyFrom && pair.valueFrom >= 0) return true;
  if (pair.valueFrom >= 0) {
    r.pos = pair.valueFrom;
    r.anyValue(pair.valueTo, 1);
  }
  return false;
}

/** A KeyValue's spans in the request body (-1: absent). */
interface Pair {
  keyFrom: number;
  keyTo: number;
  valueFrom: number;
  valueTo: number;
}

/** An AnyValue written as JSON: scalars from the wire, arrays and kvlists through `anyValue`. */
function writeValue(r: WireReader, w: JsonBytes, from: number, end: number, depth: number): void {
  // The commonest value, a string with a one-byte length filling the AnyValue, without the member loop.
  const length = r.buf[from + 1] as number;
  if (r.buf[from] === TAG_1_LEN && length < 0x80 && from + 2 + length === end) {
    w.string(r.buf, from + 2, end);
    return;
  }
  r.pos = from;
  r.member(end, depth);
  const { buf, kind } = r;
  switch (kind) {
    case STRING_VALUE:
      w.string(buf, r.from, r.to);
      return;
    case BOOL_VALUE:
    case INT_VALUE: {
      r.pos = r.from;
      const n = r.varint(r.to);
      if (kind === INT_VALUE) w.digits(n);
      else w.ascii((n | 0) !== 0 ? 'true' : 'false');
      return;
    }
    case DOUBLE_VALUE:
      w.ascii(String(finiteOrNull(buf.readDoubleLE(r.from))));
      return;
    case BYTES_VALUE:
      w.hex(buf, r.from, r.to);
      return;
    case 0:
      w.ascii('null');
      return;
    default:
      r.pos = from;
      w.json(JSON.stringify(r.anyValue(end, depth)));
  }
}
