// Field access (§5.1, §5.6, §5.8) against the reference evaluator's naive recursive resolution.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { ABSENT, collectKeywordLeaves, FieldPath, LeafList, readEventField } from '../../../sigma/engine/field-path.js';
import { keywordLeaves, resolveField } from './reference-evaluator.js';

const key = fc.constantFrom('a', 'b', 'a.b', 'c');
const scalar = fc.oneof(fc.string({ maxLength: 3 }), fc.integer(), fc.boolean(), fc.constant(null));
const json: fc.Arbitrary<unknown> = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    fc.array(tie('v'), { maxLength: 3 }),
    fc.dictionary(key, tie('v'), { maxKeys: 3 }),
  ),
})).v;
const event = fc.dictionary(key, json, { maxKeys: 4 });

function flatten(v: unknown): unknown[] {
  if (v instanceof LeafList) return v.toArray().flatMap(flatten);
  return Array.isArray(v) ? v.flatMap(flatten) : [v];
}

describe('field paths', () => {
  test('resolve finds what a naive walk finds: flat key first, dotted walk with fan-out', () => {
    const names = fc.constantFrom('a', 'a.b', 'a.b.c', 'a.a', 'c.a.b', 'b');
    fc.assert(
      fc.property(event, names, (ev, name) => {
        const pool = new LeafList();
        const got = new FieldPath(name).resolve(ev, pool);
        const want = resolveField(ev, name);
        expect(got !== ABSENT).toBe(want.present);
        if (got !== ABSENT) expect(flatten(got)).toEqual(want.leaves);
      }),
      { numRuns: 1000 },
    );
  });

  test('keyword leaves are every string, number and boolean value, never keys or nulls', () => {
    fc.assert(
      fc.property(event, (ev) => {
        const out = new LeafList();
        collectKeywordLeaves(ev, out, 0);
        expect(out.toArray()).toEqual(keywordLeaves(ev));
      }),
      { numRuns: 500 },
    );
  });

  test('keyword search stops at 64 levels of nesting', () => {
    let deep: unknown = 'needle';
    for (let i = 0; i < 70; i++) deep = [deep];
    const out = new LeafList();
    collectKeywordLeaves({ x: deep, y: 'top' }, out, 0);
    expect(out.toArray()).toEqual(['top']);
  });

  test('a reused fan-out pool is refilled, never appended to', () => {
    const path = new FieldPath('p.q');
    const pool = new LeafList();
    expect(path.resolve({ p: [{ q: 1 }, { q: 2 }] }, pool)).toBe(pool);
    expect(pool.toArray()).toEqual([1, 2]);
    path.resolve({ p: [{ q: 3 }] }, pool);
    expect(pool.toArray()).toEqual([3]);
    expect(path.resolve({ p: [{ r: 3 }] }, pool)).toBe(ABSENT);
  });

  test('readEventField gives the same value as the hot-path resolution, undefined when absent', () => {
    expect(readEventField({ 'a.b': 1, a: { b: 2 } }, 'a.b')).toBe(1);
    expect(readEventField({ a: { b: 2 } }, 'a.b')).toBe(2);
    expect(readEventField({ a: [{ b: 2 }, { b: [3] }] }, 'a.b')).toEqual([2, [3]]);
    expect(readEventField({ a: null }, 'a')).toBeNull();
    expect(readEventField({ a: {} }, 'a.b')).toBeUndefined();
    expect(readEventField('x', 'a')).toBeUndefined();
  });
});
