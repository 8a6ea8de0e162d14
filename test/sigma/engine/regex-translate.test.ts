// Sigma/PCRE regex flavour → JavaScript (§3.3.7).
import { describe, expect, test } from 'vitest';
import { translateRegex } from '../../../sigma/engine/regex-translate.js';

const none = { i: false, m: false, s: false };

function compiled(pattern: string, flags = none): RegExp {
  const t = translateRegex(pattern, flags);
  if (!t.ok) throw new Error(t.error);
  return t.re;
}

describe('regex translation', () => {
  test('leading inline flag groups become RegExp flags', () => {
    expect(compiled('(?i)abc').flags).toBe('i');
    expect(compiled('(?is)a.c').flags).toBe('is');
    expect(compiled('(?i)(?m)^a').flags).toBe('im');
    expect(compiled('abc', { i: true, m: true, s: true }).flags).toBe('ims');
  });
  test('Python named groups and back-references are rewritten', () => {
    expect(compiled('(?P<x>a)(?P=x)').test('aa')).toBe(true);
    expect(compiled('(?P<x>a)(?P=x)').test('ab')).toBe(false);
  });
  test('\\A and \\Z anchor at the string ends even with multiline', () => {
    const re = compiled('\\Aab\\Z', { i: false, m: true, s: false });
    expect(re.test('ab')).toBe(true);
    expect(re.test('x\nab')).toBe(false);
    expect(re.test('ab\n')).toBe(false);
  });
  test('escapes and classes are left alone', () => {
    expect(compiled('\\\\A').test('\\A')).toBe(true);
    expect(compiled('[\\A]').test('A')).toBe(true);
    expect(compiled('[]a]').test(']')).toBe(true);
    expect(compiled('\\-\\"').test('-"')).toBe(true);
  });
  test('unsupported or invalid patterns are errors, not silent changes', () => {
    for (const p of ['a(?i)b', '(?x)a b', 'a(', '(?i:a)', 'a\\']) expect(translateRegex(p, none).ok).toBe(false);
  });
});
