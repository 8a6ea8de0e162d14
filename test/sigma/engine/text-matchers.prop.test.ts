// Optimised string matchers (fast paths and compiled globs) against the naive code-point glob of the
// reference evaluator, over an alphabet that stresses case folding, dashes, newlines and astral characters.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type { StringPart } from '../../../sigma/ast.js';
import { EvalScope } from '../../../sigma/engine/eval-scope.js';
import { AffixAnyText, compileText, ContainsAnyText, patternParts } from '../../../sigma/engine/text-matchers.js';
import { glob } from './reference-evaluator.js';

const chars = fc.constantFrom('a', 'B', 'b', '-', '/', '—', '\n', '😀', 'É', 'é', '.', '*', '?', '\\', '[', '$');
const lit = fc.string({ unit: chars, minLength: 1, maxLength: 3 }).map((s): StringPart => ({ t: 'lit', s }));
const part = fc.oneof(
  { weight: 3, arbitrary: lit },
  { weight: 2, arbitrary: fc.constant<StringPart>({ t: 'any' }) },
  { weight: 1, arbitrary: fc.constant<StringPart>({ t: 'one' }) },
  { weight: 1, arbitrary: fc.constant<StringPart>({ t: 'dash' }) },
);
const subject = fc.string({ unit: chars, maxLength: 8 });
const scope = new EvalScope([], null, 0);

describe('string matchers', () => {
  test('compiled string values agree with a naive glob', () => {
    fc.assert(
      fc.property(fc.array(part, { maxLength: 5 }), fc.boolean(), fc.array(subject, { minLength: 1, maxLength: 8 }), (parts, cased, subjects) => {
        const m = compileText(patternParts(parts), cased);
        for (const s of subjects) {
          expect(m.test(s, s.toLowerCase(), scope)).toBe(glob(parts, s, cased));
        }
      }),
      { numRuns: 2000 },
    );
  });

  test('one automaton over many contains literals answers like a loop of includes', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string({ unit: chars, minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 12 }), fc.boolean(), fc.array(subject, { maxLength: 8 }), (lits, cased, subjects) => {
        const literals = cased ? lits : [...new Set(lits.map((l) => l.toLowerCase()))];
        const m = new ContainsAnyText(literals, cased);
        for (const s of subjects) {
          const text = cased ? s : s.toLowerCase();
          expect(m.test(s, s.toLowerCase())).toBe(literals.some((l) => text.includes(l)));
        }
      }),
      { numRuns: 1500 },
    );
  });

  for (const fromEnd of [false, true]) {
    test(`one trie over many ${fromEnd ? 'endswith' : 'startswith'} literals answers like a loop`, () => {
      fc.assert(
        fc.property(fc.uniqueArray(fc.string({ unit: chars, minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 12 }), fc.boolean(), fc.array(subject, { maxLength: 8 }), (lits, cased, subjects) => {
          const literals = cased ? lits : [...new Set(lits.map((l) => l.toLowerCase()))];
          const m = new AffixAnyText(literals, cased, fromEnd);
          expect(m.kind).toBe(fromEnd ? 'endswith' : 'startswith');
          for (const s of [...subjects, ...literals.map((l) => l.toUpperCase())]) {
            const text = cased ? s : s.toLowerCase();
            expect(m.test(s, s.toLowerCase())).toBe(literals.some((l) => (fromEnd ? text.endsWith(l) : text.startsWith(l))));
          }
        }),
        { numRuns: 1500 },
      );
    });
  }

  test('subjects built from the pattern itself match it', () => {
    const fill = fc.string({ unit: chars, maxLength: 3 });
    fc.assert(
      fc.property(fc.array(part, { maxLength: 5 }), fc.array(fill, { minLength: 5, maxLength: 5 }), (parts, fills) => {
        const s = parts
          .map((p, i) => (p.t === 'lit' ? p.s.toUpperCase() : p.t === 'any' ? (fills[i] ?? '') : p.t === 'dash' ? '–' : 'x'))
          .join('');
        expect(compileText(patternParts(parts), false).test(s, s.toLowerCase(), scope)).toBe(true);
        expect(glob(parts, s, false)).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });
});
