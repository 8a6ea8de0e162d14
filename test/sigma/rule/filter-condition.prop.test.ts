import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FilterNaming, conditionHasNot, conditionIdentifiers } from '../../../sigma/rule/filter-condition.js';

const ident = fc.constantFrom('sel', 'sel_1', 'filter-a', '_hidden', '1st', 'notepad', 'order', 'andy');
const pattern = fc.constantFrom('sel*', '*', '_h*', '*_x', 'them', 'sel');
type Cond = string;
const cond = fc.letrec<{ c: Cond }>((tie) => ({
  c: fc.oneof(
    { depthSize: 'small' },
    ident,
    fc.tuple(fc.constantFrom('1', 'any', 'all'), pattern).map(([q, p]) => `${q} of ${p}`),
    tie('c').map((c) => `not ${c}`),
    fc.tuple(tie('c'), fc.constantFrom(' and ', ' or ', '\n  and '), tie('c')).map(([a, op, b]) => `(${a}${op}${b})`),
  ),
})).c;

/** Reference: rename by whole-word replacement, `them` → the visible prefix with `*`. */
function reference(condition: string, prefix: string): string {
  return condition.replace(/[A-Za-z0-9_*-]+/g, (word, offset: number) => {
    const before = condition.slice(0, offset).trimEnd();
    if (['and', 'or', 'not', 'of', '1', 'any', 'all'].includes(word) && !before.endsWith(' of')) return word;
    if (before.endsWith(' of') || before === 'of') return word === 'them' ? `${prefix}v_*` : `${prefix}${word.startsWith('_') ? 'h' : 'v'}_${word}`;
    return `${prefix}${word.startsWith('_') ? 'h' : 'v'}_${word}`;
  });
}

describe('filter condition rewriting (property)', () => {
  it('renames every identifier and selector target and nothing else', () => {
    const naming = new FilterNaming('_filt3');
    fc.assert(
      fc.property(cond, (c) => {
        expect(naming.rewrite(c)).toBe(reference(c, '_filt3'));
      }),
      { seed: 31 },
    );
  });

  it('finds the plain identifiers and whether anything is negated', () => {
    fc.assert(
      fc.property(cond, (c) => {
        const plain = c
          .replace(/\b(1|any|all) of \S+/g, '')
          .match(/[A-Za-z0-9_*-]+/g)
          ?.filter((w) => !['and', 'or', 'not'].includes(w));
        expect(conditionIdentifiers(c)).toEqual(plain ?? []);
        expect(conditionHasNot(c)).toBe(/(^|[\s(])not\s/.test(c));
      }),
      { seed: 32 },
    );
  });
});
