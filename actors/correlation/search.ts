// Searches of ascending number arrays: entry times, per-rule entry indexes, a sorted multiset's block ends.

/** First position (from `lo`, below `hi`) whose value is >= x; `hi` when none is. */
export function lowerBound(xs: readonly number[], lo: number, hi: number, x: number): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((xs[mid] as number) < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** First position (from `lo`, below `hi`) whose value is > x; `hi` when none is. */
export function upperBound(xs: readonly number[], lo: number, hi: number, x: number): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((xs[mid] as number) <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// A window's trim looks for its first entry still inside it, and a new entry usually goes after the
// newest: the two searches below gallop from the end they start at, so they cost O(log k) in the k
// positions they pass, not O(log n) in the range.

/** `lowerBound`, galloping from `lo`. */
export function lowerBoundFromLow(xs: readonly number[], lo: number, hi: number, x: number): number {
  if (lo >= hi || (xs[lo] as number) >= x) return lo;
  let below = lo;
  let step = 1;
  while (below + step < hi && (xs[below + step] as number) < x) {
    below += step;
    step *= 2;
  }
  return lowerBound(xs, below + 1, Math.min(below + step, hi), x);
}

/** `upperBound`, galloping from `hi`. */
export function upperBoundFromHigh(xs: readonly number[], lo: number, hi: number, x: number): number {
  if (lo >= hi || (xs[hi - 1] as number) <= x) return hi;
  let above = hi - 1;
  let step = 1;
  while (above - step >= lo && (xs[above - step] as number) > x) {
    above -= step;
    step *= 2;
  }
  return upperBound(xs, Math.max(lo, above - step + 1), above, x);
}
