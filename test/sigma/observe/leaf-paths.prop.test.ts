// LeafPaths memoises a flat event's leaf paths per key shape: it must give what fieldKeys gives, for
// every event of a stream whose shapes repeat and change, flat and nested.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fieldKeys, LeafPaths } from '../../../sigma/index.js';

const leaf = fc.oneof(fc.string({ maxLength: 2 }), fc.integer(), fc.constant(null), fc.constant([1]), fc.constant({}), fc.constant({ b: 1 }), fc.constant({ b: { c: 'x' } }));
const event = fc.dictionary(fc.constantFrom('a', 'b', 'a.b', 'b.c', 'z'), leaf, { maxKeys: 4 });

describe('leaf paths per key shape', () => {
  it('equal fieldKeys over a stream of events, and share one array per flat shape (property)', () => {
    fc.assert(
      fc.property(fc.array(event, { minLength: 1, maxLength: 5 }), fc.array(fc.nat(4), { maxLength: 20 }), (events, order) => {
        const paths = new LeafPaths();
        for (const k of order) {
          const e = events[k % events.length] as Record<string, unknown>;
          expect(paths.of(e)).toEqual(fieldKeys(e));
        }
      }),
    );
    const paths = new LeafPaths();
    expect(paths.of({ a: 1, b: 'x' })).toBe(paths.of({ a: 2, b: 'y' }));
  });
});
