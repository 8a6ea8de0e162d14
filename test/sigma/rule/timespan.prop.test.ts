import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseTimespan } from '../../../sigma/rule/index.js';

const UNIT_SECONDS = { s: 1, m: 60, h: 3_600, d: 86_400, w: 604_800, M: 2_629_746, y: 31_556_952 } as const;
const unit = fc.constantFrom(...(Object.keys(UNIT_SECONDS) as (keyof typeof UNIT_SECONDS)[]));

describe('timespans (property)', () => {
  it('convert <positive integer><unit> to milliseconds', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 100_000 }), unit, (n, u) => {
        expect(parseTimespan(`${n}${u}`)).toBe(n * UNIT_SECONDS[u] * 1000);
      }),
      { seed: 11 },
    );
  });

  it('reject anything that is not exactly one positive integer and one unit', () => {
    const notTimespan = fc.string({ maxLength: 8 }).filter((s) => !/^[1-9][0-9]*[smhdwMy]$/.test(s));
    fc.assert(
      fc.property(notTimespan, (s) => {
        expect(parseTimespan(s)).toBeUndefined();
      }),
      { seed: 12 },
    );
  });

  it('reject zero, compound values and unknown units', () => {
    for (const s of ['0m', '01m', '1h30m', '1H', '1', 'm', ' 1m', '1m ']) expect(parseTimespan(s)).toBeUndefined();
  });
});
