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
  return orderedPrefixBy(ruleCount, (rule, t) => {
    for (let i = 0; i < ts.length; i++) if ((ts[i] as number) >= t && ((masks[i] as number) >>> rule) & 1) return ts[i];
    return undefined;
  });
}

/**
 * `orderedPrefix` over any entry store: `earliest(rule, t)` is the earliest time >= t of an entry that
 * matched `rule` (undefined when none). Each rule takes the earliest entry not before the previous
 * rule's choice; an entry whose time ties that choice may serve the next rule.
 */
export function orderedPrefixBy(ruleCount: number, earliest: (rule: number, t: number) => number | undefined): number {
  let t = -Infinity;
  for (let rule = 0; rule < ruleCount; rule++) {
    const at = earliest(rule, t);
    if (at === undefined) return rule;
    t = at;
  }
  return ruleCount;
}

/**
 * p-th percentile with linear interpolation between closest ranks (rank = p/100 × (n − 1)).
 * `sorted` is ascending; undefined when empty.
 */
export function percentileOf(sorted: readonly number[], p: number): number | undefined {
  return percentileBy(sorted.length, (i) => sorted[i] as number, p);
}

/** `percentileOf` over `n` ascending values read by rank (`at(i)` is the i-th smallest). */
export function percentileBy(n: number, at: (i: number) => number, p: number): number | undefined {
  if (n === 0) return undefined;
  const rank = (Math.min(100, Math.max(0, p)) / 100) * (n - 1);
  const lo = Math.floor(rank);
  const hi = Math.ceil(rank);
  const a = at(lo);
  const b = at(hi);
  return a + (b - a) * (rank - lo);
}
