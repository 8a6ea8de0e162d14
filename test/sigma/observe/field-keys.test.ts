// Field-key extraction for the field observer (daemon-semantics §13.1).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fieldKeys } from '../../../sigma/index.js';

describe('fieldKeys', () => {
  it('emits dot-joined paths of leaf values, arrays as leaves, no intermediate objects', () => {
    expect(fieldKeys({ a: 1, b: { c: 'x', d: { e: null } }, f: [{ g: 1 }], h: {} })).toEqual(['a', 'b.c', 'b.d.e', 'f']);
  });

  it('gives a path written both flat and nested once per event, where first written', () => {
    expect(fieldKeys({ 'a.b': 1, a: { b: 2, c: 3 }, d: { 'e.f': 1, e: { f: 2 } } })).toEqual(['a.b', 'a.c', 'd.e.f']);
  });

  it('gives nothing for non-object roots', () => {
    for (const v of [null, 1, 'x', [1, 2], true]) expect(fieldKeys(v)).toEqual([]);
  });

  it('stops descending at depth 64', () => {
    let deep: Record<string, unknown> = { leaf: 1 };
    for (let i = 0; i < 70; i++) deep = { n: deep };
    expect(fieldKeys(deep)).toEqual([]);
    let shallow: Record<string, unknown> = { leaf: 1 };
    for (let i = 0; i < 63; i++) shallow = { n: shallow };
    expect(fieldKeys(shallow)).toEqual([`${'n.'.repeat(63)}leaf`]);
  });

  it('yields one key per leaf, each resolving to that leaf (property)', () => {
    const key = fc.stringMatching(/^[a-z]{1,3}$/);
    const tree = fc.letrec((tie) => ({
      node: fc.dictionary(key, fc.oneof({ depthSize: 'small' }, fc.integer(), fc.string(), fc.constant(null), fc.array(fc.integer()), tie('node')), { maxKeys: 4 }),
    })).node;
    fc.assert(
      fc.property(tree, (event) => {
        const leaves: [string, unknown][] = [];
        const walk = (o: Record<string, unknown>, prefix: string): void => {
          for (const [k, v] of Object.entries(o)) {
            const p = prefix === '' ? k : `${prefix}.${k}`;
            if (typeof v === 'object' && v !== null && !Array.isArray(v)) walk(v as Record<string, unknown>, p);
            else leaves.push([p, v]);
          }
        };
        walk(event, '');
        expect(fieldKeys(event)).toEqual(leaves.map(([p]) => p));
      }),
    );
  });
});
