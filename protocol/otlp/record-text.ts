// What the byte-level readers of OTLP logs (`logs-wire.ts` for protobuf, `logs-json.ts` for OTLP/JSON)
// share to write a record's event text straight from the request body, as `logs-object.ts` would
// build it: the lines of an export as bytes, the keys §17.3 writes first, the check that attribute
// keys can go as they come, and the resource and scope keys closing every event of a scope.
import { isUtf8 } from 'node:buffer';
import { ByteLines } from '../decode/index.js';
import { JsonBytes } from './json-bytes.js';
import type { EventTail } from './logs-object.js';

/**
 * Thrown (one object, no stack to capture) where a byte-level reader leaves a request to the general
 * decoder (protobufjs, `JSON.parse`), which knows every corner of the format and says what is wrong.
 */
export const UNCOMMON: unique symbol = Symbol('uncommon OTLP encoding');

/** AnyValue members: their field numbers, and their names in OTLP/JSON (by field number), as §17.3 tells them apart. */
export const STRING_VALUE = 1;
export const BOOL_VALUE = 2;
export const INT_VALUE = 3;
export const DOUBLE_VALUE = 4;
export const ARRAY_VALUE = 5;
export const KVLIST_VALUE = 6;
export const BYTES_VALUE = 7;
export const ANY_VALUE_MEMBERS = ['', 'stringValue', 'boolValue', 'intValue', 'doubleValue', 'arrayValue', 'kvlistValue', 'bytesValue'] as const;

/** The resource and scope keys of a scope's events as JSON text (`,"k":v…`), UTF-8. */
export function tailBytes(tail: EventTail): Buffer {
  return Buffer.from(tail.map(([key, value]) => `,${JSON.stringify(key)}:${JSON.stringify(value)}`).join(''), 'utf8');
}

/**
 * The event texts of one export written one after the other into `w` (a writer of their own, made
 * with room for about as many bytes as they will take, so that the lines are its buffer, not a copy),
 * each record's bounds noted.
 */
export class RecordLines {
  private readonly bounds: number[] = [];
  private start = 0;

  constructor(readonly w: JsonBytes) {}

  get length(): number {
    return this.bounds.length >> 1;
  }

  /** A record's text starts. */
  begin(): void {
    this.start = this.w.pos;
  }

  /** The record begun is written again from its start. */
  rewind(): void {
    this.w.pos = this.start;
  }

  /** What was written since the last complete record is dropped. */
  cancel(): void {
    this.truncate(this.length);
  }

  /** The record begun is complete. */
  end(): void {
    this.bounds.push(this.start, this.w.pos);
  }

  /** A record's whole text, made as a string. */
  line(text: string): void {
    this.begin();
    this.w.json(text);
    this.end();
  }

  /** Drops the records after the first `n`. */
  truncate(n: number): void {
    this.bounds.length = 2 * n;
    this.w.pos = n === 0 ? 0 : (this.bounds[2 * n - 1] as number);
  }

  /**
   * The lines in buffers of their own (the writer's). Where the bytes of strings were copied from the
   * request unchecked (`utf8` false), text that is not UTF-8 throws `UNCOMMON` (protobufjs and a fatal
   * `TextDecoder` reject it); `utf8`: whole strings were copied from a request checked to be UTF-8.
   */
  done(utf8 = false): ByteLines {
    const bytes = this.w.take();
    if (!utf8 && !isUtf8(bytes)) throw UNCOMMON;
    return new ByteLines(bytes, Int32Array.from(this.bounds));
  }
}

/** Starts a record's text with the keys §17.3 puts first; false when it wrote none (the next key takes no comma). */
export function startRecord(lines: RecordLines, time: string | undefined, observed: string | undefined, severity: number): boolean {
  lines.begin();
  const { w } = lines;
  w.char(0x7b);
  let wrote = false;
  if (time !== undefined) {
    w.ascii(`"timestamp":"${time}"`);
    wrote = true;
  }
  if (observed !== undefined) {
    w.ascii(`${wrote ? ',' : ''}"observed_timestamp":"${observed}"`);
    wrote = true;
  }
  if (severity !== 0) {
    w.ascii(`${wrote ? ',' : ''}"severity_number":${severity}`);
    wrote = true;
  }
  return wrote;
}

/** Keys a record's attributes must avoid to be written as they come: §17.3's own, and prefixes of its resource and scope keys. */
const RESERVED_KEYS = new Set(['timestamp', 'observed_timestamp', 'severity_number', 'severity_text', 'body', 'trace_id', 'span_id', '__proto__']);
const RESERVED_PREFIXES = ['resource.', 'scope.'];
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;

/**
 * The attribute keys of one record as spans of the request body (unescaped UTF-8), and whether they
 * can be written as they come: distinct (later keys would overwrite earlier ones in place), unreserved,
 * and no array index (an object lists those first). Records of one export mostly share their keys, so
 * the check runs once for a run of records with the same keys.
 */
export class AttributeKeys {
  /** The keys of the record last checked, as spans: from, to, from, to, … */
  private checked: number[] = [];
  /** The current record's keys (the first `2 * n` entries; the array is reused from record to record). */
  private keys: number[] = [];
  private n = 0;
  private same = true;
  /** Whether the record before this one had its keys checked (they are `checked`), and whether this one has. */
  private previousChecked = false;
  private thisChecked = false;

  /** `buf` for word reads. */
  private readonly view: DataView;

  constructor(private readonly buf: Buffer) {
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  }

  /** A new record. */
  start(): void {
    this.n = 0;
    this.same = true;
    this.previousChecked = this.thisChecked;
    this.thisChecked = false;
  }

  add(from: number, to: number): void {
    const i = 2 * this.n++;
    this.keys[i] = from;
    this.keys[i + 1] = to;
    this.same &&= i < this.checked.length && sameBytes(this.buf, this.view, from, to, this.checked[i] as number, this.checked[i + 1] as number);
  }

  /** A key known to hold the bytes of the key at the same index of the record before this one. */
  repeat(from: number, to: number): void {
    const i = 2 * this.n++;
    this.keys[i] = from;
    this.keys[i + 1] = to;
    this.same &&= this.previousChecked && i < this.checked.length;
  }

  /** The record's keys can be written as they came. */
  plain(): boolean {
    if (this.same && 2 * this.n === this.checked.length) return (this.thisChecked = true);
    this.keys.length = 2 * this.n;
    if (!plainKeys(this.buf, this.keys)) return false;
    [this.checked, this.keys] = [this.keys, this.checked];
    return (this.thisChecked = true);
  }
}

/** Whether `buf[aFrom, aTo)` and `buf[from, to)` hold the same bytes, compared a word at a time. */
export function sameBytes(buf: Buffer, view: DataView, aFrom: number, aTo: number, from: number, to: number): boolean {
  const n = to - from;
  if (aTo - aFrom !== n) return false;
  if (n < 4) {
    for (let i = 0; i < n; i++) if (buf[aFrom + i] !== buf[from + i]) return false;
    return true;
  }
  // Whole words, the last one ending at the end (it may overlap the one before).
  const last = n - 4;
  for (let i = 0; i < last; i += 4) if (view.getInt32(aFrom + i, true) !== view.getInt32(from + i, true)) return false;
  return view.getInt32(aFrom + last, true) === view.getInt32(from + last, true);
}

/** Distinct, unreserved keys (spans: from, to, …) that cannot be array indices (no leading digit). */
function plainKeys(buf: Buffer, spans: readonly number[]): boolean {
  const seen = new Set<string>();
  for (let i = 0; i < spans.length; i += 2) {
    const f = spans[i] as number;
    const first = buf[f] as number;
    if (first >= DIGIT_0 && first <= DIGIT_9) return false;
    const key = buf.toString('utf8', f, spans[i + 1]);
    if (seen.has(key) || RESERVED_KEYS.has(key) || RESERVED_PREFIXES.some((p) => key.startsWith(p))) return false;
    seen.add(key);
  }
  return true;
}
