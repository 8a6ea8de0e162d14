// Sigma timespans (sigma-semantics §6.2): `<positive integer><unit>`, units case-sensitive.

const UNIT_SECONDS: Readonly<Record<string, number>> = {
  s: 1,
  m: 60,
  h: 3_600,
  d: 86_400,
  w: 604_800,
  M: 2_629_746,
  y: 31_556_952,
};

const TIMESPAN = /^([1-9][0-9]*)([smhdwMy])$/;

/** Milliseconds of a timespan such as `10m`, or undefined when it is not one. */
export function parseTimespan(text: string): number | undefined {
  const m = TIMESPAN.exec(text);
  const unit = m?.[2] === undefined ? undefined : UNIT_SECONDS[m[2]];
  if (!m?.[1] || unit === undefined) return undefined;
  const ms = Number(m[1]) * unit * 1000;
  return Number.isSafeInteger(ms) ? ms : undefined;
}
