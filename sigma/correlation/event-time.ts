import type { FieldReader } from './field-value.js';

/** Tried after any configured fields, in this order. */
export const DEFAULT_TIMESTAMP_FIELDS: readonly string[] = [
  '@timestamp',
  'timestamp',
  'EventTime',
  'TimeCreated',
  'eventTime',
  'UtcTime',
];

// Epoch numbers above this are already milliseconds (10^12 ms is 2001; 10^12 s is year 33658).
const MS_THRESHOLD = 1e12;
// rsigma clamps to [0, i64::MAX/2]; in JS the safe-integer range is the natural ceiling.
const MAX_MS = Number.MAX_SAFE_INTEGER;

const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):?(\d{2}))?$/;

/**
 * The field list an engine tries: rule-supplied fields first, then the configured ones, then the
 * defaults; each name once, first position wins.
 */
export function buildTimestampFields(configured: readonly string[], fromRules: readonly string[] = []): readonly string[] {
  const out: string[] = [];
  for (const list of [fromRules, configured, DEFAULT_TIMESTAMP_FIELDS]) {
    for (const f of list) if (!out.includes(f)) out.push(f);
  }
  return out;
}

function clamp(ms: number): number {
  return ms < 0 ? 0 : ms > MAX_MS ? MAX_MS : Math.floor(ms);
}

/**
 * Epoch milliseconds from one field value: numbers are epoch seconds (milliseconds above 10^12);
 * strings are RFC 3339 or naive `YYYY-MM-DD[T ]HH:MM:SS[.f]` taken as UTC. Anything else: undefined.
 */
export function parseTimestamp(value: unknown): number | undefined {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return undefined;
    return clamp(Math.abs(value) > MS_THRESHOLD ? value : value * 1000);
  }
  if (typeof value !== 'string') return undefined;
  const m = RFC3339.exec(value.trim());
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac, , sign, oh, om] = m;
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) return undefined;
  const fracMs = frac === undefined ? 0 : Math.floor(Number(`0.${frac}`) * 1000);
  const date = new Date(Date.UTC(2000, month - 1, day, hour, minute, second, fracMs));
  // setUTCFullYear, because Date.UTC maps years 0–99 to 1900–1999.
  date.setUTCFullYear(Number(y));
  if (date.getUTCDate() !== day && second < 60) return undefined; // 31 April, 29 February 2023, ...
  let ms = date.getTime();
  if (sign !== undefined) {
    const offset = (Number(oh) * 60 + Number(om)) * 60_000;
    ms += sign === '+' ? -offset : offset;
  }
  return Number.isFinite(ms) ? clamp(ms) : undefined;
}

/** The first field in `fields` whose value parses, in epoch milliseconds; undefined when none does. */
export function extractEventTime(event: unknown, fields: readonly string[], read: FieldReader): number | undefined {
  for (let i = 0; i < fields.length; i++) {
    const ms = parseTimestamp(read(event, fields[i] as string));
    if (ms !== undefined) return ms;
  }
  return undefined;
}
