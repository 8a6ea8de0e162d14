import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeGroupKey, groupKeyPairs, renderGroupKey } from '../../../sigma/correlation/index.js';

describe('group keys', () => {
  it('encodes distinct tuples to distinct map keys', () => {
    const part = fc.option(fc.string({ maxLength: 6, unit: fc.constantFrom('a', ':', '-', ';', '1', '') }), { nil: null });
    fc.assert(
      fc.property(fc.array(part, { maxLength: 4 }), fc.array(part, { maxLength: 4 }), (a, b) => {
        expect(encodeGroupKey(a) === encodeGroupKey(b)).toBe(JSON.stringify(a) === JSON.stringify(b));
      }),
      { numRuns: 2000 },
    );
  });

  it('omits absent components from result pairs but shows them in the display', () => {
    expect(groupKeyPairs(['User', 'Host'], ['bob', null])).toEqual([['User', 'bob']]);
    expect(renderGroupKey(['User', 'Host'], ['bob', null])).toBe('User=bob, Host=<none>');
    expect(renderGroupKey([], [])).toBe('(no group-by)');
  });
});
