/** Number of set bits of a rule mask (at most 31 rules per temporal correlation). */
export function popcount(mask: number): number {
  let m = mask - ((mask >>> 1) & 0x55555555);
  m = (m & 0x33333333) + ((m >>> 2) & 0x33333333);
  return (((m + (m >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/**
 * Length of the longest prefix of the rule list that occurs in order: one entry per rule with
 * non-decreasing timestamps (ties allowed, one entry may serve several rules). `ts` is ascending and
 * `masks[i]` holds the rules entry i matched. Greedy earliest choice is optimal for a prefix.
 */
export function orderedPrefix(ts: readonly number[], masks: readonly number[], ruleCount: number): number {
  let rule = 0;
  let i = 0;
  while (rule < ruleCount && i < ts.length) {
    // An entry whose timestamp ties the previous choice may still serve the next rule.
    if (((masks[i] as number) >>> rule) & 1) {
      rule++;
      const at = ts[i] as number;
      while (i > 0 && (ts[i - 1] as number) === at) i--;
    } else {
      i++;
    }
  }
  return rule;
}

/**
 * p-th percentile with linear interpolation between closest ranks (rank = p/100 × (n − 1)).
 * `sorted` is ascending; undefined when empty.
 */
export function percentileOf(sorted: readonly number[], p: number): number | undefined {
  const n = sorted.length;
  if (n === 0) return undefined;
  const rank = (Math.min(100, Math.max(0, p)) / 100) * (n - 1);
  const lo = Math.floor(rank);
  const hi = Math.ceil(rank);
  const a = sorted[lo] as number;
  const b = sorted[hi] as number;
  return a + (b - a) * (rank - lo);
}
