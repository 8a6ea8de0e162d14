// Dedup entries hold their sample and fields as frozen values that share strings (issue 13: heap per
// entry), and snapshots write them back as text: that text must be the text they were parsed from, for
// any JSON, or summaries and snapshots would change bytes. The live path copies the values it holds
// instead (`frozenCopyPair`): the copy must be what parsing their JSON text gives.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { frozenCopyPair, frozenJsonPair } from '../../../actors/alert/frozen-json.js';

const json = fc.jsonValue().map((v) => JSON.stringify(v));
const frozen = (v: unknown): boolean => typeof v !== 'object' || v === null || (Object.isFrozen(v) && Object.values(v).every(frozen));
/** What a stage may hold: besides JSON, what JSON.stringify writes its own way (undefined, NaN, -0, dates, boxed values, holes, null prototypes). */
const held = fc.dictionary(fc.oneof(fc.string(), fc.constantFrom('__proto__', 'toJSON', '0', '10')), fc.anything({ withBoxedValues: true, withNullPrototype: true, withDate: true, withMap: true, withSet: true, withSparseArray: true, withTypedArray: true }), { maxKeys: 6 });

describe('frozenJsonPair', () => {
  it('serialises back to the texts it parsed, frozen all the way down', () => {
    fc.assert(
      fc.property(json, json, (a, b) => {
        const [x, y] = frozenJsonPair(a, b);
        expect(JSON.stringify(x)).toBe(a);
        expect(JSON.stringify(y)).toBe(b);
        expect(frozen(x) && frozen(y)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('copies held values into what parsing their JSON gives, frozen, leaving the originals alone', () => {
    fc.assert(
      fc.property(held, held, (a, b) => {
        const [ta, tb] = [JSON.stringify(a), JSON.stringify(b)];
        const [x, y] = frozenCopyPair(a, b);
        expect(JSON.stringify(x)).toBe(ta);
        expect(JSON.stringify(y)).toBe(tb);
        expect([x, y]).toStrictEqual(frozenJsonPair(ta, tb));
        expect(frozen(x) && frozen(y)).toBe(true);
        expect(Object.isFrozen(a) || Object.isFrozen(b)).toBe(false);
        expect([JSON.stringify(a), JSON.stringify(b)]).toEqual([ta, tb]);
      }),
      { numRuns: 300 },
    );
  });

  it('copies an own __proto__ key as an own key, not a prototype, and -0, NaN and undefined items as JSON reads them', () => {
    const v = JSON.parse('{"__proto__":{"a":1},"b":2}') as unknown;
    const [x, y] = frozenCopyPair(v, { z: -0, n: [NaN, undefined] });
    expect(JSON.stringify(x)).toBe('{"__proto__":{"a":1},"b":2}');
    expect(y).toStrictEqual({ z: 0, n: [null, null] });
    expect(Object.getPrototypeOf(x)).toBe(Object.prototype);
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
