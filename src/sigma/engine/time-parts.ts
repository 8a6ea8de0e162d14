// Time-part modifiers (§3.3.16): read an event timestamp (RFC 3339 / ISO 8601 with or without zone, the
// `YYYY-MM-DD HH:MM:SS[.f]` form, or epoch seconds/milliseconds as a JSON number) and pull out one UTC
// component. Plain arithmetic on numbers, so nothing is allocated per event.
import type { TimePart } from '../ast.js';

const MS_PER_DAY = 86_400_000;

function digits(s: string, at: number, n: number): number {
  let v = 0;
  for (let k = at; k < at + n; k++) {
    const c = s.charCodeAt(k);
    // charCodeAt past the end is NaN, which this comparison also rejects.
    if (!(c >= 48 && c <= 57)) return -1;
    v = v * 10 + (c - 48);
  }
  return v;
}

/** Epoch milliseconds of a timestamp string, NaN when it is not one of the accepted forms. */
function parseTimestamp(s: string): number {
  if (s.length < 10 || s.charCodeAt(4) !== 45 || s.charCodeAt(7) !== 45) return Number.NaN;
  const year = digits(s, 0, 4);
  const month = digits(s, 5, 2);
  const day = digits(s, 8, 2);
  if (year < 0 || month < 1 || month > 12 || day < 1 || day > 31) return Number.NaN;
  let hour = 0;
  let minute = 0;
  let second = 0;
  let ms = 0;
  let k = 10;
  if (k < s.length) {
    const sep = s.charCodeAt(k);
    if (sep !== 84 && sep !== 116 && sep !== 32) return Number.NaN;
    hour = digits(s, k + 1, 2);
    if (s.charCodeAt(k + 3) !== 58) return Number.NaN;
    minute = digits(s, k + 4, 2);
    if (hour < 0 || hour > 23 || minute < 0 || minute > 59) return Number.NaN;
    k += 6;
    if (s.charCodeAt(k) === 58) {
      second = digits(s, k + 1, 2);
      if (second < 0 || second > 60) return Number.NaN;
      k += 3;
      if (s.charCodeAt(k) === 46 || s.charCodeAt(k) === 44) {
        k++;
        let scale = 100;
        const start = k;
        while (k < s.length) {
          const c = s.charCodeAt(k);
          if (c < 48 || c > 57) break;
          ms += (c - 48) * scale;
          scale /= 10;
          k++;
        }
        if (k === start) return Number.NaN;
        ms = Math.floor(ms);
      }
    }
  }
  let offsetMin = 0;
  if (k < s.length) {
    const z = s.charCodeAt(k);
    if ((z === 90 || z === 122) && k + 1 === s.length) k++;
    else if (z === 43 || z === 45) {
      const oh = digits(s, k + 1, 2);
      let om = 0;
      let next = k + 3;
      if (s.charCodeAt(next) === 58) next++;
      if (next < s.length) {
        om = digits(s, next, 2);
        next += 2;
      }
      if (oh < 0 || oh > 23 || om < 0 || om > 59 || next !== s.length) return Number.NaN;
      offsetMin = (z === 45 ? -1 : 1) * (oh * 60 + om);
      k = s.length;
    } else return Number.NaN;
  }
  if (k !== s.length) return Number.NaN;
  return Date.UTC(year, month - 1, day, hour, minute, second, ms) - offsetMin * 60_000;
}

/** Epoch milliseconds of an event leaf: timestamp strings, or epoch numbers (> 10^12 means milliseconds). */
export function timestampOf(leaf: unknown): number {
  if (typeof leaf === 'number') return Math.abs(leaf) > 1e12 ? leaf : leaf * 1000;
  if (typeof leaf === 'string') return parseTimestamp(leaf);
  return Number.NaN;
}

/** Civil date from days since 1970-01-01 (proleptic Gregorian), packed as year*10000 + month*100 + day. */
function civil(days: number): number {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  const y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  return y * 10000 + m * 100 + d;
}

function isoWeek(days: number): number {
  // ISO weekday 1..7 (1970-01-01 was a Thursday); the week belongs to the year of its Thursday.
  const weekday = ((((days + 3) % 7) + 7) % 7) + 1;
  const thursday = days - weekday + 4;
  const year = Math.floor(civil(thursday) / 10000);
  const jan1 = Math.floor(Date.UTC(year, 0, 1) / MS_PER_DAY);
  return Math.floor((thursday - jan1) / 7) + 1;
}

/** The UTC component `part` of an epoch-milliseconds instant. */
export function timePartOf(ms: number, part: TimePart): number {
  const days = Math.floor(ms / MS_PER_DAY);
  switch (part) {
    case 'minute':
      return Math.floor((ms - days * MS_PER_DAY) / 60_000) % 60;
    case 'hour':
      return Math.floor((ms - days * MS_PER_DAY) / 3_600_000);
    case 'day':
      return civil(days) % 100;
    case 'month':
      return Math.floor(civil(days) / 100) % 100;
    case 'year':
      return Math.floor(civil(days) / 10000);
    case 'week':
      return isoWeek(days);
    default: {
      const never: never = part;
      throw new Error(`unknown time part ${String(never)}`);
    }
  }
}
