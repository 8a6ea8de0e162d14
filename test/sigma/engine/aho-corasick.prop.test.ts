// The automaton reports exactly the literals that occur in a text (naive `includes` as the oracle).
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { AhoCorasick } from '../../../src/sigma/engine/aho-corasick.js';

const unit = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', '\\', '.', 'é', '😀', '—');
const literal = fc.string({ unit, minLength: 1, maxLength: 4 });

describe('Aho-Corasick', () => {
  test('marks exactly the literals contained in the text', () => {
    fc.assert(
      fc.property(fc.uniqueArray(literal, { minLength: 1, maxLength: 40 }), fc.array(fc.string({ unit, maxLength: 24 }), { maxLength: 6 }), (lits, texts) => {
        const ac = new AhoCorasick(new Map(lits.map((l, i) => [l, [i]])));
        for (const text of texts) {
          const bits = new Uint32Array(Math.ceil(lits.length / 32));
          ac.scan(text, bits);
          const got = lits.map((_, i) => ((bits[i >>> 5] as number) & (1 << (i & 31))) !== 0);
          expect(got).toEqual(lits.map((l) => text.includes(l)));
        }
      }),
      { numRuns: 1500 },
    );
  });
});
