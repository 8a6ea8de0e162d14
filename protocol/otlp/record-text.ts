// What the byte-level readers of OTLP logs (`logs-wire.ts` for protobuf, `logs-json.ts` for OTLP/JSON)
// share to write a record's event text straight from the request body, as `logs-object.ts` would
// build it: the keys §17.3 writes first, the check that attribute keys can go as they come, and the
// resource and scope keys closing every event of a scope.
import { JsonBytes, widerThanLatin1 } from './json-bytes.js';
import type { EventTail } from './logs-object.js';

/** AnyValue members: their field numbers, and their names in OTLP/JSON (by field number), as §17.3 tells them apart. */
export const STRING_VALUE = 1;
export const BOOL_VALUE = 2;
export const INT_VALUE = 3;
export const DOUBLE_VALUE = 4;
export const ARRAY_VALUE = 5;
export const KVLIST_VALUE = 6;
export const BYTES_VALUE = 7;
export const ANY_VALUE_MEMBERS = ['', 'stringValue', 'boolValue', 'intValue', 'doubleValue', 'arrayValue', 'kvlistValue', 'bytesValue'] as const;

/** The resource and scope keys of a scope's events as JSON text (`,"k":v…`), in the buffer's encoding. */
export interface TailBytes {
  readonly bytes: Buffer;
  readonly wide: boolean;
}

export function tailBytes(tail: EventTail): TailBytes {
  const text = tail.map(([key, value]) => `,${JSON.stringify(key)}:${JSON.stringify(value)}`).join('');
  const wide = widerThanLatin1(text);
  return { bytes: Buffer.from(text, wide ? 'utf8' : 'latin1'), wide };
}

/** Starts a record's text with the keys §17.3 puts first; false when it wrote none (the next key takes no comma). */
export function startRecord(w: JsonBytes, time: string | undefined, observed: string | undefined, severity: number): boolean {
  w.reset();
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
  private checkedFrom: number[] = [];
  private checkedTo: number[] = [];
  private from: number[] = [];
  private to: number[] = [];
  private same = true;

  constructor(private readonly buf: Buffer) {}

  /** A new record. */
  start(): void {
    this.from = [];
    this.to = [];
    this.same = true;
  }

  add(from: number, to: number): void {
    const n = this.from.length;
    this.from.push(from);
    this.to.push(to);
    this.same &&= n < this.checkedFrom.length && sameBytes(this.buf, from, to, this.checkedFrom[n] as number, this.checkedTo[n] as number);
  }

  /** The record's keys can be written as they came. */
  plain(): boolean {
    if (this.same && this.from.length === this.checkedFrom.length) return true;
    if (!plainKeys(this.buf, this.from, this.to)) return false;
    this.checkedFrom = this.from;
    this.checkedTo = this.to;
    return true;
  }
}

function sameBytes(buf: Buffer, aFrom: number, aTo: number, from: number, to: number): boolean {
  if (aTo - aFrom !== to - from) return false;
  for (let i = 0; i < to - from; i++) if (buf[aFrom + i] !== buf[from + i]) return false;
  return true;
}

/** Distinct, unreserved keys that cannot be array indices (no leading digit). */
function plainKeys(buf: Buffer, from: readonly number[], to: readonly number[]): boolean {
  const seen = new Set<string>();
  for (let i = 0; i < from.length; i++) {
    const f = from[i] as number;
    const first = buf[f] as number;
    if (first >= DIGIT_0 && first <= DIGIT_9) return false;
    const key = buf.toString('utf8', f, to[i]);
    if (seen.has(key) || RESERVED_KEYS.has(key) || RESERVED_PREFIXES.some((p) => key.startsWith(p))) return false;
    seen.add(key);
  }
  return true;
}
