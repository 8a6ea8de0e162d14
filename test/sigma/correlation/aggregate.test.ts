import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { orderedPrefix, percentileOf, popcount } from '../../../sigma/correlation/index.js';

/** Brute force: is there an entry per rule 0..k-1 with non-decreasing timestamps? */
function orderedExists(entries: readonly { ts: number; mask: number }[], k: number, rule = 0, from = -Infinity): boolean {
  if (rule === k) return true;
  return entries.some((e) => e.ts >= from && ((e.mask >>> rule) & 1) === 1 && orderedExists(entries, k, rule + 1, e.ts));
}

describe('aggregates', () => {
  it('counts set bits', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0x7fffffff }), (m) => {
        expect(popcount(m)).toBe(m.toString(2).split('').filter((c) => c === '1').length);
      }),
    );
  });

  it('finds the longest in-order prefix of rules, ties allowed', () => {
    const entry = fc.record({ ts: fc.integer({ min: 0, max: 6 }), mask: fc.integer({ min: 1, max: 15 }) });
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 9 }), fc.integer({ min: 1, max: 4 }), (raw, n) => {
        const entries = [...raw].sort((a, b) => a.ts - b.ts);
        let expected = 0;
        while (expected < n && orderedExists(entries, expected + 1)) expected++;
        expect(orderedPrefix(entries.map((e) => e.ts), entries.map((e) => e.mask), n)).toBe(expected);
      }),
      { numRuns: 500 },
    );
  });

  it('enforces order beyond the first rule', () => {
    // a@0, c@1, b@2: a then b holds, c must follow b and does not.
    expect(orderedPrefix([0, 1, 2], [0b001, 0b100, 0b010], 3)).toBe(2);
    expect(orderedPrefix([0, 1, 2, 3], [0b001, 0b100, 0b010, 0b100], 3)).toBe(3);
  });

  it('lets one entry at a tied timestamp serve the next rule', () => {
    expect(orderedPrefix([5, 5], [0b10, 0b01], 2)).toBe(2);
    expect(orderedPrefix([5], [0b11], 2)).toBe(2);
  });

  it('interpolates percentiles linearly between closest ranks', () => {
    expect(percentileOf([], 50)).toBeUndefined();
    expect(percentileOf([7], 90)).toBe(7);
    expect(percentileOf([1, 2, 3, 4], 50)).toBe(2.5);
    expect(percentileOf([10, 20, 30, 40, 50], 90)).toBe(46);
    expect(percentileOf([10, 20, 30], 0)).toBe(10);
    expect(percentileOf([10, 20, 30], 100)).toBe(30);
  });

  it('keeps percentiles within the data and monotone in p', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -1000, max: 1000 }), { minLength: 1, maxLength: 30 }), fc.integer({ min: 0, max: 99 }), (xs, p) => {
        const sorted = [...xs].sort((a, b) => a - b);
        const lo = percentileOf(sorted, p) as number;
        const hi = percentileOf(sorted, p + 1) as number;
        expect(lo).toBeGreaterThanOrEqual(sorted[0] as number);
        expect(hi).toBeLessThanOrEqual(sorted[sorted.length - 1] as number);
        expect(hi).toBeGreaterThanOrEqual(lo);
      }),
    );
  });
});
