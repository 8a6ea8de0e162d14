import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseDuration } from '../../protocol/duration.js';

const UNITS: readonly [string, number][] = [
  ['ms', 1],
  ['s', 1_000],
  ['m', 60_000],
  ['h', 3_600_000],
  ['d', 86_400_000],
  ['w', 604_800_000],
];

describe('humantime durations', () => {
  it('sums concatenated integer+unit tokens', () => {
    const token = fc.tuple(fc.nat({ max: 10_000 }), fc.constantFrom(...UNITS));
    fc.assert(
      fc.property(fc.array(token, { minLength: 1, maxLength: 5 }), fc.constantFrom('', ' '), (tokens, sep) => {
        const text = tokens.map(([n, [unit]]) => `${n}${unit}`).join(sep);
        expect(parseDuration(text)).toBe(tokens.reduce((sum, [n, [, ms]]) => sum + n * ms, 0));
      }),
    );
  });

  it('never throws and rejects text that is not a duration', () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        const ms = parseDuration(s);
        if (ms !== undefined) expect(Number.isSafeInteger(ms)).toBe(true);
      }),
    );
    for (const bad of ['', '5', 'm', '5 parsecs', '1h-2m', '-5s', '1.5s']) expect(parseDuration(bad), bad).toBeUndefined();
    expect(parseDuration('1h30m')).toBe(5_400_000);
    expect(parseDuration('500ms')).toBe(500);
  });
});
