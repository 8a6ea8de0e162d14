// Time-part modifiers (§3.3.16): read an event timestamp (RFC 3339 / ISO 8601 with or without zone, the
// `YYYY-MM-DD HH:MM:SS[.f]` form, or epoch seconds/milliseconds as a JSON number) and pull out one UTC
// component. The instant is kept as (days since epoch, milliseconds into the day): both stay small
// integers, so reading a timestamp allocates nothing (a full epoch-ms double would be boxed).
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

/** Days since 1970-01-01 of a proleptic Gregorian date (month 1–12). */
function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/** Civil date from days since 1970-01-01, packed as year*10000 + month*100 + day. */
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
  return Math.floor((thursday - daysFromCivil(year, 1, 1)) / 7) + 1;
}

function partOf(days: number, msOfDay: number, part: TimePart): number {
  switch (part) {
    case 'minute':
      return Math.floor(msOfDay / 60_000) % 60;
    case 'hour':
      return Math.floor(msOfDay / 3_600_000);
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

/** Reads one event timestamp at a time into reusable fields. */
export class TimeReader {
  days = 0;
  msOfDay = 0;

  /** Whether `leaf` is a timestamp; if so `days`/`msOfDay` hold it in UTC. */
  read(leaf: unknown): boolean {
    if (typeof leaf === 'number') {
      if (!Number.isFinite(leaf)) return false;
      const ms = Math.abs(leaf) > 1e12 ? leaf : leaf * 1000;
      this.days = Math.floor(ms / MS_PER_DAY);
      this.msOfDay = ms - this.days * MS_PER_DAY;
      return true;
    }
    return typeof leaf === 'string' && this.parse(leaf);
  }

  part(p: TimePart): number {
    return partOf(this.days, this.msOfDay, p);
  }

  private parse(s: string): boolean {
    if (s.length < 10 || s.charCodeAt(4) !== 45 || s.charCodeAt(7) !== 45) return false;
    const year = digits(s, 0, 4);
    const month = digits(s, 5, 2);
    const day = digits(s, 8, 2);
    if (year < 0 || month < 1 || month > 12 || day < 1 || day > 31) return false;
    let hour = 0;
    let minute = 0;
    let second = 0;
    let ms = 0;
    let k = 10;
    if (k < s.length) {
      const sep = s.charCodeAt(k);
      if (sep !== 84 && sep !== 116 && sep !== 32) return false;
      hour = digits(s, k + 1, 2);
      if (s.charCodeAt(k + 3) !== 58) return false;
      minute = digits(s, k + 4, 2);
      if (hour < 0 || hour > 23 || minute < 0 || minute > 59) return false;
      k += 6;
      if (s.charCodeAt(k) === 58) {
        second = digits(s, k + 1, 2);
        if (second < 0 || second > 60) return false;
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
          if (k === start) return false;
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
        if (oh < 0 || oh > 23 || om < 0 || om > 59 || next !== s.length) return false;
        offsetMin = (z === 45 ? -1 : 1) * (oh * 60 + om);
        k = s.length;
      } else return false;
    }
    if (k !== s.length) return false;
    let days = daysFromCivil(year, month, day);
    let msOfDay = ((hour * 60 + minute - offsetMin) * 60 + second) * 1000 + ms;
    // An offset can move the instant to the neighbouring day.
    if (msOfDay < 0) {
      msOfDay += MS_PER_DAY;
      days--;
    } else if (msOfDay >= MS_PER_DAY) {
      msOfDay -= MS_PER_DAY;
      days++;
    }
    this.days = days;
    this.msOfDay = msOfDay;
    return true;
  }
}

/** Epoch milliseconds of an event leaf, NaN when it is not a timestamp (convenience for tests and tools). */
export function timestampOf(leaf: unknown): number {
  const r = new TimeReader();
  return r.read(leaf) ? r.days * MS_PER_DAY + r.msOfDay : Number.NaN;
}

/** The UTC component `part` of an epoch-milliseconds instant. */
export function timePartOf(ms: number, part: TimePart): number {
  const days = Math.floor(ms / MS_PER_DAY);
  return partOf(days, ms - days * MS_PER_DAY, part);
}
