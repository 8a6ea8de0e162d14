// The automaton reports exactly the literals that occur in a text (naive `includes` as the oracle),
// whatever number of nodes get dense rows (and whichever nodes those are, chosen up front or promoted
// while scanning).
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { AhoCorasick, isDigitsNumber, SCAN_HIT, SCAN_NON_ASCII } from '../../../sigma/engine/aho-corasick.js';

const unit = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', '\\', '.', 'é', '😀', '—');
const literal = fc.string({ unit, minLength: 1, maxLength: 4 });
const textUnit = fc.constantFrom('a', 'b', 'c', 'A', 'B', 'H', '\\', '.', 'é', 'É', '😀', '—', 'İ');
const texts = fc.array(fc.string({ unit: fc.oneof(unit, textUnit), maxLength: 24 }), { maxLength: 6 });
const denseRows = fc.integer({ min: 1, max: 40 });

function marked(lits: readonly string[], scan: (bits: Uint32Array) => void): boolean[] {
  const bits = new Uint32Array(Math.ceil(lits.length / 32));
  scan(bits);
  return lits.map((_, i) => ((bits[i >>> 5] as number) & (1 << (i & 31))) !== 0);
}

describe('Aho-Corasick', () => {
  test('marks exactly the literals contained in the text', () => {
    fc.assert(
      fc.property(fc.uniqueArray(literal, { minLength: 1, maxLength: 40 }), texts, denseRows, (lits, ts, rows) => {
        const ac = new AhoCorasick(new Map(lits.map((l, i) => [l, [i]])), rows);
        for (const text of ts) {
          let hit: boolean | undefined;
          expect(marked(lits, (bits) => (hit = ac.scan(text, bits)))).toEqual(lits.map((l) => text.includes(l)));
          expect(hit).toBe(lits.some((l) => text.includes(l)));
          expect(ac.occursIn(text)).toBe(lits.some((l) => text.includes(l)));
        }
      }),
      { numRuns: 1500 },
    );
  });

  test('scanLowered marks what scan marks in the lowercased text', () => {
    fc.assert(
      fc.property(fc.uniqueArray(literal, { minLength: 1, maxLength: 40 }), texts, denseRows, (lits, ts, rows) => {
        const ac = new AhoCorasick(new Map(lits.map((l, i) => [l, [i]])), rows);
        for (const text of ts) {
          let flags = 0;
          const expected = lits.map((l) => text.toLowerCase().includes(l));
          expect(marked(lits, (bits) => (flags = ac.scanLowered(text, bits)))).toEqual(expected);
          expect((flags & SCAN_NON_ASCII) === 0).toBe(/^[\x00-\x7f]*$/.test(text));
          expect((flags & SCAN_HIT) !== 0).toBe(expected.some((x) => x));
        }
      }),
      { numRuns: 1000 },
    );
  });

  test('rows promoted while scanning (adaptive rows) change nothing that is marked', () => {
    const adaptive = fc.record({ extra: fc.integer({ min: 0, max: 30 }), after: fc.integer({ min: 1, max: 3 }) });
    fc.assert(
      fc.property(fc.uniqueArray(literal, { minLength: 1, maxLength: 40 }), texts, fc.integer({ min: 1, max: 8 }), adaptive, (lits, ts, rows, { extra, after }) => {
        const ac = new AhoCorasick(new Map(lits.map((l, i) => [l, [i]])), rows, extra, after);
        // Every text several times over, interleaved, so promotions happen between and within scans.
        for (let round = 0; round < 3; round++) {
          for (const text of ts) {
            const lower = text.toLowerCase();
            expect(marked(lits, (bits) => ac.scanLowered(text, bits))).toEqual(lits.map((l) => lower.includes(l)));
            expect(marked(lits, (bits) => ac.scan(text, bits))).toEqual(lits.map((l) => text.includes(l)));
            expect(ac.occursIn(text)).toBe(lits.some((l) => text.includes(l)));
          }
        }
      }),
      { numRuns: 1000 },
    );
  });

  test('a literal with several postings, and postings shared between literals, set exactly the union', () => {
    const postings = fc.uniqueArray(fc.integer({ min: 0, max: 40 }), { maxLength: 4 });
    fc.assert(
      fc.property(fc.uniqueArray(fc.tuple(literal, postings), { minLength: 1, maxLength: 30, selector: ([l]) => l }), texts, denseRows, (entries, ts, rows) => {
        const ac = new AhoCorasick(new Map(entries), rows);
        for (const text of ts) {
          const bits = new Uint32Array(2);
          ac.scan(text, bits);
          const expected = new Set(entries.filter(([l]) => text.includes(l)).flatMap(([, p]) => p));
          const set = Array.from({ length: 41 }, (_, i) => i).filter((i) => ((bits[i >>> 5] as number) & (1 << (i & 31))) !== 0);
          expect(set).toEqual([...expected].sort((a, b) => a - b));
        }
      }),
      { numRuns: 500 },
    );
  });

  test('scanDigits marks what scan marks in the decimal text of a non-negative safe integer', () => {
    const digitLiteral = fc.string({ unit: fc.constantFrom('0', '1', '2', '9', '-', 'e'), minLength: 1, maxLength: 3 });
    const n = fc.oneof(fc.nat(), fc.constantFrom(0, -0, 10, 4624, Number.MAX_SAFE_INTEGER), fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }));
    fc.assert(
      fc.property(fc.uniqueArray(digitLiteral, { minLength: 1, maxLength: 20 }), n, denseRows, (lits, x, rows) => {
        expect(isDigitsNumber(x)).toBe(true);
        const ac = new AhoCorasick(new Map(lits.map((l, i) => [l, [i]])), rows);
        let hit: boolean | undefined;
        expect(marked(lits, (bits) => (hit = ac.scanDigits(x, bits)))).toEqual(lits.map((l) => String(x).includes(l)));
        expect(hit).toBe(lits.some((l) => String(x).includes(l)));
      }),
      { numRuns: 500 },
    );
    for (const x of [-1, 1.5, 1e21, Number.MAX_SAFE_INTEGER + 2, Number.NaN]) expect(isDigitsNumber(x)).toBe(false);
  });
});
