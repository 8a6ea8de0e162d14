import { SigmaError } from '../errors.js';

// Month and year are the pySigma/rsigma averages (Gregorian), so `1M` means the same everywhere.
const UNIT_MS: Readonly<Record<string, number>> = {
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
  M: 2_629_746_000,
  y: 31_556_952_000,
};

const DURATION = /^([1-9][0-9]*)([smhdwMy])$/;

/** `<positive integer><unit>` (`s m h d w M y`, case-sensitive) in milliseconds, or undefined. */
export function parseDurationMs(text: string): number | undefined {
  const m = DURATION.exec(text.trim());
  if (!m) return undefined;
  const unit = UNIT_MS[m[2] ?? ''];
  return unit === undefined ? undefined : Number(m[1]) * unit;
}

/** Like `parseDurationMs`, but a bad value is a load error naming where it came from. */
export function requireDurationMs(text: string, what: string): number {
  const ms = parseDurationMs(text);
  if (ms === undefined) {
    throw new SigmaError('correlation', 'bad_duration', `${what}: '${text}' is not a duration like 30s, 5m, 1h, 7d`);
  }
  return ms;
}
