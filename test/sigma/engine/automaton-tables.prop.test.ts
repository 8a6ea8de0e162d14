// Automata taken back from their packed tables (the compiled-rule cache's form) scan exactly like the
// ones built from the literals, also while they promote dense rows, and never write into the packed
// tables (which a warm build may share); a stored set that does not fit a request is built over.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { AutomatonSupply, packAutomata, unpackAutomata } from '../../../sigma/engine/automaton-tables.js';

const unit = fc.constantFrom('a', 'b', 'c', 'd', '\\', '.', 'é', '😀');
const literal = fc.string({ unit, minLength: 1, maxLength: 4 });
const texts = fc.array(fc.string({ unit: fc.oneof(unit, fc.constantFrom('A', 'B', 'É')), maxLength: 24 }), { maxLength: 6 });
const literalLists = fc.array(fc.uniqueArray(literal, { minLength: 1, maxLength: 30 }), { minLength: 1, maxLength: 4 });

function marked(count: number, scan: (bits: Uint32Array) => void): boolean[] {
  const bits = new Uint32Array(Math.ceil(count / 32));
  scan(bits);
  return Array.from({ length: count }, (_, i) => ((bits[i >>> 5] as number) & (1 << (i & 31))) !== 0);
}

const entriesOf = (lits: readonly string[]): Map<string, number[]> => new Map(lits.map((l, i) => [l, [i]]));

/** The automata of `lists` (one Aho-Corasick, one prefix and one suffix trie each) from `supply`. */
function make(supply: AutomatonSupply, lists: readonly (readonly string[])[], rows: number, extra: number) {
  return lists.map((lits) => ({
    lits,
    ac: supply.ahoCorasick(entriesOf(lits), rows, extra),
    prefixes: supply.affixTrie(entriesOf(lits), false),
    suffixes: supply.affixTrie(entriesOf(lits), true),
  }));
}

describe('automaton tables', () => {
  test('automata taken from packed tables mark what built ones mark, promote on their own, and leave the tables as they were', () => {
    fc.assert(
      fc.property(literalLists, texts, fc.integer({ min: 1, max: 8 }), fc.integer({ min: 0, max: 20 }), (lists, ts, rows, extra) => {
        const recorder = new AutomatonSupply([], true);
        const built = make(recorder, lists, rows, extra);
        expect(recorder.built).toBe(lists.length * 3);
        const packed = packAutomata(recorder.made);
        const before = { ints: packed.ints.slice(), chars: packed.chars.slice() };
        // Two takers of the same tables, as two threads sharing them would be.
        const takers = [new AutomatonSupply(unpackAutomata(packed)), new AutomatonSupply(unpackAutomata(packed))];
        const restored = takers.map((s) => make(s, lists, rows, extra));
        for (const s of takers) expect(s.built).toBe(0);
        for (let round = 0; round < 3; round++) {
          for (const text of ts) {
            const lower = text.toLowerCase();
            for (const copy of restored) {
              copy.forEach(({ lits, ac, prefixes, suffixes }, i) => {
                const original = built[i];
                if (original === undefined) throw new Error('no built automaton');
                expect(marked(lits.length, (b) => ac.scanLowered(text, b))).toEqual(lits.map((l) => lower.includes(l)));
                expect(ac.occursIn(text)).toBe(original.ac.occursIn(text));
                expect(marked(lits.length, (b) => prefixes.walk(lower, false, b))).toEqual(lits.map((l) => lower.startsWith(l)));
                expect(marked(lits.length, (b) => suffixes.walk(lower, false, b))).toEqual(lits.map((l) => lower.endsWith(l)));
                expect(suffixes.hasKeyOf(text)).toBe(original.suffixes.hasKeyOf(text));
              });
            }
          }
        }
        expect(packed.ints).toEqual(before.ints);
        expect(packed.chars).toEqual(before.chars);
      }),
      { numRuns: 100 },
    );
  });

  test('a stored set that does not fit the requests is built over from there on', () => {
    const recorder = new AutomatonSupply([], true);
    make(recorder, [['ab', 'cd'], ['x']], 2, 0);
    const supply = new AutomatonSupply(unpackAutomata(packAutomata(recorder.made)));
    // Same first request, then other literals: the rest is built, and still right.
    const [first, second] = make(supply, [['ab', 'cd'], ['yz', 'w']], 2, 0);
    expect(supply.built).toBe(3);
    expect(marked(2, (b) => first?.ac.scan('xcd', b))).toEqual([false, true]);
    expect(marked(2, (b) => second?.ac.scan('ayz', b))).toEqual([true, false]);
    expect(marked(2, (b) => second?.suffixes.walk('aw', false, b))).toEqual([false, true]);
  });

  test('a header that does not describe its pools is refused', () => {
    const recorder = new AutomatonSupply([], true);
    make(recorder, [['ab', 'cd']], 2, 0);
    const packed = packAutomata(recorder.made);
    expect(() => unpackAutomata({ ...packed, ints: packed.ints.subarray(1) })).toThrow(/pool/);
    expect(() => unpackAutomata({ ...packed, header: packed.header.subarray(0, 5) })).toThrow(/header/);
  });
});
