// `windash` (§3.3.6): pySigma's position rule (`\B[-/]\b` per literal part). Candidate positions become
// `{t:'dash'}` parts instead of 5^k materialised strings; the compiler turns each into a character class.
import type { StringPart } from '../ast.js';
import { normaliseParts } from './sigma-string.js';

/** The characters a windash position stands for: `-`, `/`, en dash, em dash, horizontal bar. */
export const WINDASH_CHARS = ['-', '/', '\u2013', '\u2014', '\u2015'] as const;

/** Above this many candidate positions in one value a rule is rejected (interface spec, MAX_WINDASH_DASHES). */
export const MAX_WINDASH_DASHES = 8;

const WORD = /[\p{L}\p{N}_]/u;

function isWord(ch: string | undefined): boolean {
  return ch !== undefined && WORD.test(ch);
}

/** Replace every candidate `-`/`/` in the literal parts by a dash part. */
export function markWindashPositions(parts: readonly StringPart[]): StringPart[] {
  const out: StringPart[] = [];
  for (const p of parts) {
    if (p.t !== 'lit') {
      out.push(p);
      continue;
    }
    const chars = Array.from(p.s);
    let lit = '';
    for (let i = 0; i < chars.length; i++) {
      const ch = chars[i] as string;
      if ((ch === '-' || ch === '/') && !isWord(chars[i - 1]) && isWord(chars[i + 1])) {
        out.push({ t: 'lit', s: lit }, { t: 'dash' });
        lit = '';
      } else {
        lit += ch;
      }
    }
    out.push({ t: 'lit', s: lit });
  }
  return normaliseParts(out);
}

export function countDashes(parts: readonly StringPart[]): number {
  let n = 0;
  for (const p of parts) if (p.t === 'dash') n++;
  return n;
}

/** Every concrete string the dash parts stand for (5^k alternatives), for steps that need real text. */
export function materialiseDashes(parts: readonly StringPart[]): StringPart[][] {
  let variants: StringPart[][] = [[]];
  for (const p of parts) {
    if (p.t === 'dash') {
      variants = variants.flatMap((v) => WINDASH_CHARS.map((c) => [...v, { t: 'lit' as const, s: c }]));
    } else {
      for (const v of variants) v.push(p);
    }
  }
  return variants.map(normaliseParts);
}
