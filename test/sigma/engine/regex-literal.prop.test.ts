// The regex literal used as a witness must occur (lowercased) in every text the regex matches.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { regexMinLength, requiredRegexLiteral } from '../../../sigma/engine/regex-literal.js';
import { translateRegex } from '../../../sigma/engine/regex-translate.js';

const token = fc.constantFrom(
  'a', 'b', 'A', 'B', '-', '/', ' ', '1', '\\.', '\\\\', '\\-', '.', '\\d', '\\s', '\\b', '[ab]', '[^a]', '[]a]',
  '(a|b)', '(?:ab)', '(?i)', '(?=a)', '(?!b)', '?', '*', '+', '{0,2}', '{2}', '{1,}', '|', '^', '$', 'é', 'K',
  '\\x41', '\\u0062', '\\cJ', '\\12', '(a)\\1', '\\x4',
);
const subject = fc.string({ unit: fc.constantFrom('a', 'b', 'A', 'B', '-', '/', ' ', '1', '.', '\\', '\n', 'é', 'É', 'k', '2', '4', 'x'), maxLength: 10 });

describe('required regex literal', () => {
  test('every match contains the lowercased literal', () => {
    fc.assert(
      fc.property(fc.array(token, { maxLength: 8 }), fc.record({ i: fc.boolean(), m: fc.boolean(), s: fc.boolean() }), fc.array(subject, { maxLength: 10 }), (tokens, flags, subjects) => {
        const pattern = tokens.join('');
        const t = translateRegex(pattern, flags);
        if (!t.ok) return;
        const lit = requiredRegexLiteral(pattern);
        for (const s of subjects) {
          if (t.re.test(s)) expect(s.toLowerCase()).toContain(lit);
        }
      }),
      { numRuns: 3000 },
    );
  });

  test('finds the longest plain run and gives up where it cannot be sure', () => {
    expect(requiredRegexLiteral('\\s-[FTd]\\s')).toBe('-');
    expect(requiredRegexLiteral('(?i)invoke-expression\\s+\\(')).toBe('invoke-expression');
    expect(requiredRegexLiteral('C:\\\\Windows\\\\Temp\\\\[a-z]+\\.exe')).toBe('c:\\windows\\temp\\');
    expect(requiredRegexLiteral('abc?d')).toBe('ab');
    expect(requiredRegexLiteral('ab+cd')).toBe('ab');
    expect(requiredRegexLiteral('a|bcdef')).toBe('');
    expect(requiredRegexLiteral('(abc|def)')).toBe('');
    expect(requiredRegexLiteral('x{0,3}yz')).toBe('yz');
    // Escapes longer than one character are not literals (`\x41` is `A`, not `41`).
    expect(requiredRegexLiteral('\\x41')).toBe('');
    expect(requiredRegexLiteral('\\u00e9ab')).toBe('ab');
  });
});

describe('regex minimum length', () => {
  const lengthToken = fc.constantFrom(
    'a', 'b', '.', '\\d', '\\b', '\\1', '\\u0061', '\\x61', '[ab]', '[^a]', '(a|b)', '(?:ab)', '(?=a)', '(?<=a)',
    '(a)', '?', '*', '+', '??', '{0,2}', '{2}', '{3,}', '{2,4}?', '{', '}', ',', '|', '^', '$', '😀', 'é',
  );
  const text = fc.string({ unit: fc.constantFrom('a', 'b', '1', 'é', '😀', '\n'), maxLength: 12 });
  test('no match is shorter than the bound', () => {
    fc.assert(
      fc.property(fc.array(lengthToken, { maxLength: 8 }), fc.constantFrom('', 'u', 'i', 'iu', 's'), fc.array(text, { maxLength: 12 }), (tokens, flags, texts) => {
        let re: RegExp;
        try {
          re = new RegExp(tokens.join(''), flags);
        } catch {
          return;
        }
        const min = regexMinLength(re.source);
        for (const t of texts) if (re.test(t)) expect(t.length).toBeGreaterThanOrEqual(min);
      }),
      { numRuns: 3000 },
    );
  });

  test('counts atoms times their required repetitions', () => {
    expect(regexMinLength('[^/]{100,}$')).toBe(100);
    expect(regexMinLength('^a\\.b+c?d*e{2,3}')).toBe(5);
    expect(regexMinLength('ab|c')).toBe(0);
    expect(regexMinLength('(abc)x\\u0041yz')).toBe(1);
  });
});

