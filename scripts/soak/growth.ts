// The soak's verdict on its per-minute samples: a series whose least-squares line over the last half
// of the run rises by more than its allowance grows without bound (at the soak's length).

export interface Sample {
  readonly minute: number;
  readonly rss: number;
  readonly heap: number;
  readonly lmdb: number;
  readonly lagP99Ms: number;
  readonly inputQueue: number;
  readonly outputQueue: number;
  readonly sinkQueue: number;
  readonly processed: number;
  readonly tailDropped: number;
  readonly tapDropped: number;
  readonly webhookFailed: number;
}

/** How much a series may rise over the last half: a share of its mean, at least a floor. */
const ALLOWANCE: Readonly<Record<'rss' | 'heap' | 'lmdb' | 'lagP99Ms' | 'inputQueue' | 'outputQueue' | 'sinkQueue', { share: number; floor: number }>> = {
  rss: { share: 0.2, floor: 64 * 1_048_576 },
  heap: { share: 0.2, floor: 64 * 1_048_576 },
  lmdb: { share: 0.2, floor: 32 * 1_048_576 },
  lagP99Ms: { share: 0.5, floor: 50 },
  inputQueue: { share: 0.5, floor: 2_000 },
  outputQueue: { share: 0.5, floor: 2_000 },
  sinkQueue: { share: 0.5, floor: 2_000 },
};

/** Slope per minute of the least-squares line through (x, y). */
export function slope(points: readonly (readonly [number, number])[]): number {
  const n = points.length;
  if (n < 2) return 0;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  const sxx = points.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  return sxx === 0 ? 0 : points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0) / sxx;
}

/** One sentence per series that grows without bound over the last half of the samples. */
export function growthOverLastHalf(samples: readonly Sample[]): string[] {
  const half = samples.slice(Math.floor(samples.length / 2));
  if (half.length < 3) return [];
  const span = (half.at(-1)?.minute ?? 0) - (half[0]?.minute ?? 0);
  const problems: string[] = [];
  for (const [key, allow] of Object.entries(ALLOWANCE) as [keyof typeof ALLOWANCE, { share: number; floor: number }][]) {
    const ys = half.map((s) => s[key]);
    const mean = ys.reduce((a, b) => a + b, 0) / ys.length;
    const rise = slope(half.map((s) => [s.minute, s[key]] as const)) * span;
    const limit = Math.max(allow.floor, allow.share * mean);
    if (rise > limit) problems.push(`${key} grows: +${Math.round(rise)} over the last ${span} min (allowed ${Math.round(limit)})`);
  }
  return problems;
}
