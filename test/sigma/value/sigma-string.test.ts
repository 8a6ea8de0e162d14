import { describe, expect, it } from 'vitest';
import type { StringPart } from '../../../sigma/ast.js';
import {
  hasWildcards,
  literalParts,
  literalText,
  normaliseParts,
  parseSigmaString,
  printSigmaString,
} from '../../../sigma/value/index.js';

const L = (s: string): StringPart => ({ t: 'lit', s });
const W: StringPart = { t: 'any' };
const Q: StringPart = { t: 'one' };

describe('parseSigmaString (§2.5 escape table)', () => {
  it.each<[string, StringPart[]]>([
    ['C:\\Windows\\System32\\cmd.exe', [L('C:\\Windows\\System32\\cmd.exe')]],
    ['C:\\\\Windows\\\\cmd.exe', [L('C:\\Windows\\cmd.exe')]],
    ['C:\\Windows\\*', [L('C:\\Windows*')]],
    ['C:\\Windows\\\\*', [L('C:\\Windows\\'), W]],
    ['a\\\\\\*b', [L('a\\*b')]],
    ['a\\\\\\\\*b', [L('a\\\\'), W, L('b')]],
    ['trail\\', [L('trail\\')]],
    ['q\\?', [L('q?')]],
    ['%user%', [L('%user%')]],
    ['prog?.exe', [L('prog'), Q, L('.exe')]],
    ['*', [W]],
    ['', []],
    ['**', [W, W]],
    ['\\%x', [L('\\%x')]],
  ])('parses %j', (text, parts) => {
    expect(parseSigmaString(text)).toEqual(parts);
  });
});

describe('printSigmaString', () => {
  it('keeps plain backslashes single', () => {
    expect(printSigmaString([L('C:\\Windows\\cmd.exe')])).toBe('C:\\Windows\\cmd.exe');
  });
  it('escapes literal wildcards and a backslash before a wildcard', () => {
    expect(printSigmaString([L('C:\\Windows*')])).toBe('C:\\Windows\\*');
    expect(printSigmaString([L('a\\*b')])).toBe('a\\\\\\*b');
    expect(printSigmaString([L('C:\\Windows\\'), W])).toBe('C:\\Windows\\\\*');
    expect(printSigmaString([L('q?'), Q])).toBe('q\\??');
  });
  it('prints placeholders and escapes literal percent signs only in placeholder syntax', () => {
    const parts: StringPart[] = [L('%plain'), { t: 'ph', name: 'name' }];
    expect(printSigmaString(parts, { placeholders: true })).toBe('\\%plain%name%');
    expect(printSigmaString([L('50%')])).toBe('50%');
  });
  it('prints a windash position as a hyphen', () => {
    expect(printSigmaString([L(' '), { t: 'dash' }, L('enc')])).toBe(' -enc');
  });
});

describe('part helpers', () => {
  it('hasWildcards sees * and ? but not literal or dash parts', () => {
    expect(hasWildcards([L('a'), W])).toBe(true);
    expect(hasWildcards([Q])).toBe(true);
    expect(hasWildcards([L('a*'), { t: 'dash' }])).toBe(false);
  });
  it('literalText joins literal parts and refuses anything else', () => {
    expect(literalText([L('a'), L('b')])).toBe('ab');
    expect(literalText([])).toBe('');
    expect(literalText([L('a'), W])).toBeUndefined();
  });
  it('normaliseParts merges adjacent literals and drops empty ones', () => {
    expect(normaliseParts([L(''), L('a'), L('b'), W, L('')])).toEqual([L('ab'), W]);
  });
  it('literalParts gives no part for the empty string', () => {
    expect(literalParts('')).toEqual([]);
    expect(literalParts('x')).toEqual([L('x')]);
  });
});
