// The anchored-literal trie marks exactly the keys the lowercase text starts (ends) with, naive
// startsWith/endsWith as the oracle, following the candidate index's protocol: a folded walk, and when it
// gives up at a non-ASCII character, a walk over the real lowercase text.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { AffixTrie } from '../../../sigma/engine/affix-trie.js';

const unit = fc.constantFrom('a', 'b', 'c', '\\', '.', 'é', 'i̇', 'ς', 'σ', '😀');
const key = fc.string({ unit, minLength: 1, maxLength: 4 });
const textUnit = fc.constantFrom('a', 'b', 'c', 'A', 'B', '\\', '.', 'é', 'É', 'İ', 'Σ', 'σ', '😀');
const text = fc.string({ unit: fc.oneof(unit, textUnit), maxLength: 12 });

function marked(keys: readonly string[], walk: (bits: Uint32Array) => void): boolean[] {
  const bits = new Uint32Array(Math.ceil(keys.length / 32));
  walk(bits);
  return keys.map((_, i) => ((bits[i >>> 5] as number) & (1 << (i & 31))) !== 0);
}

describe('AffixTrie', () => {
  for (const fromEnd of [false, true]) {
    test(`marks exactly the keys the lowercase text ${fromEnd ? 'ends' : 'starts'} with`, () => {
      fc.assert(
        fc.property(fc.uniqueArray(key, { minLength: 1, maxLength: 30 }), fc.array(text, { maxLength: 6 }), (keys, texts) => {
          const trie = new AffixTrie(new Map(keys.map((k, i) => [k, [i]])), fromEnd);
          for (const t of texts) {
            const lower = t.toLowerCase();
            const expected = keys.map((k) => (fromEnd ? lower.endsWith(k) : lower.startsWith(k)));
            expect(marked(keys, (bits) => trie.walk(lower, false, bits))).toEqual(expected);
            expect(marked(keys, (bits) => void (trie.walk(t, true, bits) || trie.walk(lower, false, bits)))).toEqual(expected);
          }
        }),
        { numRuns: 1000 },
      );
    });
  }

  for (const fromEnd of [false, true]) {
    test(`hasKeyOf says whether the text ${fromEnd ? 'ends' : 'starts'} with some key, code units as they are`, () => {
      fc.assert(
        fc.property(fc.uniqueArray(key, { minLength: 1, maxLength: 30 }), fc.array(text, { maxLength: 6 }), (keys, texts) => {
          const trie = new AffixTrie(new Map(keys.map((k) => [k, [0]])), fromEnd);
          for (const t of [...texts, ...keys.map((k) => (fromEnd ? `x${k}` : `${k}x`))]) {
            expect(trie.hasKeyOf(t)).toBe(keys.some((k) => (fromEnd ? t.endsWith(k) : t.startsWith(k))));
          }
        }),
        { numRuns: 1000 },
      );
    });
  }

  test('keys sharing a node and postings shared between keys set exactly the union', () => {
    const trie = new AffixTrie(new Map([['.exe', [0, 2]], ['\\cmd.exe', [1, 2]], ['d.exe', [3]]]), true);
    const bits = new Uint32Array(1);
    trie.walk('C:\\X\\CMD.EXE', true, bits);
    expect(bits[0]).toBe(0b1111);
    bits[0] = 0;
    trie.walk('C:\\X\\CMD.EXE ', true, bits);
    expect(bits[0]).toBe(0);
  });
});
