import type { Histogram, LabelValues } from 'prom-client';

/** What prom-client 15 keeps per histogram series (`Histogram#hashMap` values). */
interface SeriesValues {
  labels: Record<string, unknown>;
  bucketValues: Record<string, number>;
  sum: number;
  count: number;
}

function isSeries(v: unknown): v is SeriesValues {
  if (typeof v !== 'object' || v === null) return false;
  const s = v as Partial<SeriesValues>;
  return typeof s.sum === 'number' && typeof s.count === 'number' && typeof s.bucketValues === 'object' && s.bucketValues !== null && typeof s.labels === 'object';
}

function sameLabels(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => String(a[k]) === String(b[k]));
}

/**
 * Observations of one histogram series, gathered as they come and added to the series once per batch.
 * A prom-client `observe` rebuilds the series' label key on every call, which costs more than a
 * template enricher's whole call. prom-client has no call that adds values in bulk, so `flush` adds
 * them to the series' values it keeps, in order, as `observe` would (the same sum to the last bit);
 * should a prom-client version keep them otherwise, the tally finds no series and `flush` observes
 * each value instead (the same exposition, at the old cost). prom-client 15's public hooks do not
 * serve: a `collect` callback can only `observe` value by value (the same cost, moved to the scrape,
 * with the values held until one comes), and `registerMetric` is typed for its own four metric
 * classes, so a custom object would need a cast and our own histogram exposition shaped to what the
 * registry reads from `get()`: more code resting on prom-client's internals, not less.
 */
export class HistogramTally<T extends string> {
  private readonly bounds: readonly number[];
  private readonly values: number[] = [];

  constructor(
    private readonly handle: Histogram<T>,
    private readonly labels: LabelValues<T>,
  ) {
    handle.zero(labels);
    const bounds = (handle as unknown as { upperBounds?: unknown }).upperBounds;
    this.bounds = this.series() !== undefined && Array.isArray(bounds) ? (bounds as number[]) : [];
  }

  observe(value: number): void {
    this.values.push(value);
  }

  /** Adds what was observed since the last flush to the series. */
  flush(): void {
    if (this.values.length === 0) return;
    const series = this.bounds.length === 0 ? undefined : (this.series() ?? this.zeroed());
    for (const v of this.values) {
      if (series === undefined) this.handle.observe(this.labels, v);
      else add(series, this.bounds, v);
    }
    this.values.length = 0;
  }

  /** The series made again (a registry reset removed it). */
  private zeroed(): SeriesValues | undefined {
    this.handle.zero(this.labels);
    return this.series();
  }

  /** The series' values as prom-client keeps them, looked up again each flush (a reload may have made the series anew). */
  private series(): SeriesValues | undefined {
    const map = (this.handle as unknown as { hashMap?: unknown }).hashMap;
    if (typeof map !== 'object' || map === null) return undefined;
    for (const v of Object.values(map)) if (isSeries(v) && sameLabels(v.labels, this.labels as Record<string, unknown>)) return v;
    return undefined;
  }
}

/** What prom-client's `observe` does to a series: sum, count, and the first bucket whose bound holds the value. */
function add(series: SeriesValues, bounds: readonly number[], v: number): void {
  series.sum += v;
  series.count += 1;
  for (const b of bounds) {
    if (v <= b) {
      const key = String(b);
      series.bucketValues[key] = (series.bucketValues[key] ?? 0) + 1;
      return;
    }
  }
}
