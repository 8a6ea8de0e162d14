// Event-side coercions (§5.4): strict decimal parsing, text forms, lenient booleans, the lowercase cache.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { booleanValue, LowerCache, numericValue, textOf, toLower } from '../../../sigma/engine/event-text.js';

describe('event text', () => {
  test('every finite number round-trips through its decimal text', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (n) => {
        expect(numericValue(String(n))).toBe(n === 0 ? 0 : n);
        expect(numericValue(n)).toBe(n);
      }),
      { numRuns: 1000 },
    );
  });

  test('only the strict decimal grammar counts as a number', () => {
    fc.assert(
      fc.property(fc.integer(), fc.constantFrom(' ', '\t', '0x', '_', 'e'), (n, junk) => {
        expect(Number.isNaN(numericValue(`${junk}${Math.abs(n)}`))).toBe(true);
      }),
    );
    for (const s of ['', ' 16', '16 ', '0x10', 'Infinity', '-Infinity', 'NaN', '1e', '.', '+', '1_000']) expect(Number.isNaN(numericValue(s))).toBe(true);
    for (const [s, n] of [['04624', 4624], ['.5', 0.5], ['5.', 5], ['-1e3', -1000], ['+7', 7]] as const) expect(numericValue(s)).toBe(n);
    expect(Number.isNaN(numericValue(true))).toBe(true);
  });

  test('text forms and lenient booleans', () => {
    expect([textOf('x'), textOf(1.5), textOf(false), textOf(null), textOf({})]).toEqual(['x', '1.5', 'false', undefined, undefined]);
    expect(['TRUE', 'yes', '1', 'No', '0', 'false', 'maybe', 1].map(booleanValue)).toEqual([true, true, true, false, false, false, undefined, undefined]);
  });

  test('the lowercase cache always answers like toLowerCase', () => {
    const cache = new LowerCache();
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 4 }), { maxLength: 80 }), (xs) => {
        for (const x of xs) expect(cache.lower(x)).toBe(x.toLowerCase());
      }),
    );
  });

  test('toLower equals toLowerCase and returns lowercase ASCII text itself', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        expect(toLower(s)).toBe(s.toLowerCase());
      }),
    );
    const s = ['c:\\windows', 'x'].join('\\');
    expect(toLower(s)).toBe(s);
  });
});
