// Dedup entries hold their sample and fields as frozen values that share strings (issue 13: heap per
// entry), and snapshots write them back as text: that text must be the text they were parsed from, for
// any JSON, or summaries and snapshots would change bytes.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { frozenJsonPair } from '../../../actors/alert/frozen-json.js';

const json = fc.jsonValue().map((v) => JSON.stringify(v));

describe('frozenJsonPair', () => {
  it('serialises back to the texts it parsed, frozen all the way down', () => {
    fc.assert(
      fc.property(json, json, (a, b) => {
        const [x, y] = frozenJsonPair(a, b);
        expect(JSON.stringify(x)).toBe(a);
        expect(JSON.stringify(y)).toBe(b);
        const frozen = (v: unknown): boolean => typeof v !== 'object' || v === null || (Object.isFrozen(v) && Object.values(v).every(frozen));
        expect(frozen(x) && frozen(y)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps an own __proto__ key and lone surrogates as JSON.parse reads them', () => {
    const text = '{"__proto__":{"a":"\\ud800"},"b":["x","\\udc00y"],"__proto__x":1}';
    const [v] = frozenJsonPair(text, '{}');
    expect(JSON.stringify(v)).toBe(text);
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
  });

  it('shares equal short string lists across values', () => {
    const [a] = frozenJsonPair('{"tags":["attack.t1033","attack.discovery"],"rule":"r-1"}', '{}');
    const [b] = frozenJsonPair('{"tags":["attack.t1033","attack.discovery"],"rule":"r-1"}', '{}');
    expect((a as { tags: unknown }).tags).toBe((b as { tags: unknown }).tags);
  });
});
