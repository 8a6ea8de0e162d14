// Sigma string syntax (§2.5): `*` and `?` are wildcards, `\` escapes only `*`, `?` and `\`; any other
// backslash is literal. Parts are kept normalised (adjacent literals merged, no empty literal) so that
// structurally equal strings compare equal.
import type { StringPart } from '../ast.js';
import { assertNever } from './assert-never.js';

const ANY: StringPart = { t: 'any' };
const ONE: StringPart = { t: 'one' };

/** Parse rule text into literal and wildcard parts (no placeholders: those need `expand`). */
export function parseSigmaString(text: string): StringPart[] {
  const parts: StringPart[] = [];
  let lit = '';
  let escaped = false;
  for (const ch of text) {
    if (escaped) {
      lit += ch === '*' || ch === '?' || ch === '\\' ? ch : `\\${ch}`;
      escaped = false;
    } else if (ch === '\\') {
      escaped = true;
    } else if (ch === '*' || ch === '?') {
      if (lit !== '') parts.push({ t: 'lit', s: lit });
      lit = '';
      parts.push(ch === '*' ? ANY : ONE);
    } else {
      lit += ch;
    }
  }
  if (escaped) lit += '\\';
  if (lit !== '') parts.push({ t: 'lit', s: lit });
  return parts;
}

export interface PrintOptions {
  /** Print placeholders as `%name%` and escape literal `%` as `\%` (the `expand` syntax). */
  readonly placeholders?: boolean;
}

/**
 * Print parts back as rule text; `parseSigmaString(printSigmaString(p))` equals `normaliseParts(p)` for
 * parts made of literals and wildcards. A windash position prints as `-` (it has no rule syntax).
 */
export function printSigmaString(parts: readonly StringPart[], options: PrintOptions = {}): string {
  // Render tokens first so each backslash can see the character printed after it.
  const tokens: { text: string; literal: boolean }[] = [];
  for (const p of parts) {
    switch (p.t) {
      case 'lit':
        for (const ch of p.s) tokens.push({ text: ch, literal: true });
        break;
      case 'any':
        tokens.push({ text: '*', literal: false });
        break;
      case 'one':
        tokens.push({ text: '?', literal: false });
        break;
      case 'ph':
        tokens.push({ text: `%${p.name}%`, literal: false });
        break;
      case 'dash':
        tokens.push({ text: '-', literal: false });
        break;
      default:
        return assertNever(p);
    }
  }
  let out = '';
  for (let i = 0; i < tokens.length; i++) {
    const tok = tokens[i] as { text: string; literal: boolean };
    if (!tok.literal) {
      out += tok.text;
    } else if (tok.text === '*' || tok.text === '?') {
      out += `\\${tok.text}`;
    } else if (tok.text === '%' && options.placeholders === true) {
      out += '\\%';
    } else if (tok.text === '\\') {
      // A backslash needs doubling only where the parser would read it as an escape.
      const next = tokens[i + 1]?.text[0];
      out += next === '*' || next === '?' || next === '\\' ? '\\\\' : '\\';
    } else {
      out += tok.text;
    }
  }
  return out;
}

/** Merge adjacent literals and drop empty ones. */
export function normaliseParts(parts: readonly StringPart[]): StringPart[] {
  const out: StringPart[] = [];
  for (const p of parts) {
    if (p.t === 'lit') {
      if (p.s === '') continue;
      const last = out[out.length - 1];
      if (last?.t === 'lit') {
        out[out.length - 1] = { t: 'lit', s: last.s + p.s };
        continue;
      }
    }
    out.push(p);
  }
  return out;
}

/** True when the parts contain `*` or `?`. */
export function hasWildcards(parts: readonly StringPart[]): boolean {
  return parts.some((p) => p.t === 'any' || p.t === 'one');
}

/** The plain text when every part is literal, otherwise `undefined`. */
export function literalText(parts: readonly StringPart[]): string | undefined {
  let s = '';
  for (const p of parts) {
    if (p.t !== 'lit') return undefined;
    s += p.s;
  }
  return s;
}

/** Parts of a plain literal text (none for the empty string). */
export function literalParts(s: string): StringPart[] {
  return s === '' ? [] : [{ t: 'lit', s }];
}
