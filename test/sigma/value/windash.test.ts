import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { StringPart } from '../../../sigma/ast.js';
import { WINDASH_CHARS } from '../../../sigma/value/index.js';
import { markWindashPositions, materialiseDashes } from '../../../sigma/value/windash.js';
import { parseSigmaString, printSigmaString } from '../../../sigma/value/index.js';
import { partsToRegExp } from './glob.js';

const D: StringPart = { t: 'dash' };
const L = (s: string): StringPart => ({ t: 'lit', s });
const W: StringPart = { t: 'any' };

describe('markWindashPositions (pySigma position rule)', () => {
  it.each<[string, StringPart[]]>([
    [' -enc ', [L(' '), D, L('enc ')]],
    ['/c', [D, L('c')]],
    ['--force', [L('-'), D, L('force')]],
    ['start/b', [L('start/b')]],
    ['a-b', [L('a-b')]],
    ['-param-1 -param2', [D, L('param-1 '), D, L('param2')]],
    ['*-foo', [W, D, L('foo')]],
    ['a*-foo', [L('a'), W, D, L('foo')]],
    ['x - y', [L('x - y')]],
    ['-', [L('-')]],
    [' -é', [L(' '), D, L('é')]],
    [' -_x', [L(' '), D, L('_x')]],
  ])('%j', (text, parts) => {
    expect(markWindashPositions(parseSigmaString(text))).toEqual(parts);
  });

  it('materialises a position into the five dash characters', () => {
    expect(materialiseDashes([L(' '), D, L('enc')]).map((p) => printSigmaString(p))).toEqual(WINDASH_CHARS.map((c) => ` ${c}enc`));
  });
});

// Reference for candidate positions: Python's `\B[-/]\b` with Unicode word characters.
const CANDIDATE = /(?<![\p{L}\p{N}_])[-/](?=[\p{L}\p{N}_])/gu;
const text = fc.string({ unit: fc.constantFrom('-', '/', 'a', 'Z', '1', '_', ' ', '.', 'é', '\u2013'), maxLength: 16 });

describe('windash properties', () => {
  it('every choice of dash character at every candidate position is matched', () => {
    fc.assert(
      fc.property(text, fc.array(fc.constantFrom(...WINDASH_CHARS), { minLength: 16, maxLength: 16 }), (value, choices) => {
        const pattern = partsToRegExp(markWindashPositions(parseSigmaString(value)));
        let n = 0;
        const units = value.split('');
        for (const m of value.matchAll(CANDIDATE)) units[m.index] = choices[n++ % choices.length] as string;
        expect(pattern.test(units.join(''))).toBe(true);
      }),
    );
  });

  it('non-candidate positions stay literal', () => {
    fc.assert(
      fc.property(text, fc.nat(), (value, pick) => {
        const candidates = new Set(Array.from(value.matchAll(CANDIDATE), (m) => m.index));
        const others = Array.from(value.matchAll(/[-/]/g), (m) => m.index).filter((i) => !candidates.has(i));
        fc.pre(others.length > 0);
        const at = others[pick % others.length] as number;
        const swapped = value.slice(0, at) + (value[at] === '-' ? '/' : '-') + value.slice(at + 1);
        expect(partsToRegExp(markWindashPositions(parseSigmaString(value))).test(swapped)).toBe(false);
        expect(partsToRegExp(markWindashPositions(parseSigmaString(value))).test(value)).toBe(true);
      }),
    );
  });
});
