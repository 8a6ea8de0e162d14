/**
 * "humantime" durations of daemon-semantics §0: integer+unit tokens, concatenable (`1h30m`,
 * `500ms`). Returns milliseconds, or undefined when the text is not such a duration.
 */
const UNIT_MS: Readonly<Record<string, number>> = {
  ms: 1,
  s: 1_000,
  sec: 1_000,
  m: 60_000,
  min: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

const TOKEN = /(\d+)\s*([a-z]+)\s*/gy;

export function parseDuration(text: string): number | undefined {
  const s = text.trim();
  if (s === '') return undefined;
  TOKEN.lastIndex = 0;
  let total = 0;
  while (TOKEN.lastIndex < s.length) {
    const m = TOKEN.exec(s);
    if (m === null) return undefined;
    const unit = UNIT_MS[m[2] ?? ''];
    if (unit === undefined) return undefined;
    total += Number(m[1]) * unit;
  }
  return Number.isSafeInteger(total) ? total : undefined;
}
