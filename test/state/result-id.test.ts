import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { resultIdForInput, resultIdForTimer } from '../../state/index.js';

describe('result ids', () => {
  it('encodes input position and result index in a documented format', () => {
    expect(resultIdForInput(0, 0)).toBe('e000000000000-0');
    expect(resultIdForInput(255, 10)).toBe('e0000000000ff-a');
  });

  it('input-driven ids sort in input order and never collide', () => {
    fc.assert(
      fc.property(fc.nat({ max: 2 ** 40 }), fc.nat({ max: 2 ** 40 }), fc.nat({ max: 300 }), fc.nat({ max: 300 }), (a, b, i, j) => {
        const x = resultIdForInput(a, i);
        const y = resultIdForInput(b, j);
        expect(x === y).toBe(a === b && i === j);
        if (a < b) expect(x < y).toBe(true);
      }),
    );
  });

  it('timer-driven ids depend only on actor key, trigger, time and index', () => {
    const id = resultIdForTimer('corr:rule-1:host=a', 'group_wait', 1_700_000_000_000, 0);
    expect(id).toBe(resultIdForTimer('corr:rule-1:host=a', 'group_wait', 1_700_000_000_000, 0));
    expect(id).toMatch(/^t[0-9a-f]{16}-[0-9a-f]+-group_wait-0$/);
    expect(id).not.toBe(resultIdForTimer('corr:rule-1:host=b', 'group_wait', 1_700_000_000_000, 0));
    expect(id).not.toBe(resultIdForTimer('corr:rule-1:host=a', 'repeat', 1_700_000_000_000, 0));
    expect(id).not.toBe(resultIdForTimer('corr:rule-1:host=a', 'group_wait', 1_700_000_000_001, 0));
  });

  it('rejects trigger names that could blur the id fields', () => {
    expect(() => resultIdForTimer('k', 'a-b', 0, 0)).toThrow(RangeError);
  });
});
