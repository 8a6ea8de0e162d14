import { SigmaError } from '../errors.js';

/** Longest condition accepted (defensive limit, sigma-semantics §4.6). */
export const MAX_CONDITION_LENGTH = 64 * 1024;

type ConditionKeyword = 'and' | 'or' | 'not' | 'of' | 'them' | 'any' | 'all';

export type ConditionToken =
  | { readonly t: 'word'; readonly text: string; readonly pos: number }
  | { readonly t: 'kw'; readonly kw: ConditionKeyword; readonly pos: number }
  | { readonly t: '(' | ')'; readonly pos: number }
  | { readonly t: 'end'; readonly pos: number };

const KEYWORDS: ReadonlySet<string> = new Set<ConditionKeyword>(['and', 'or', 'not', 'of', 'them', 'any', 'all']);

function isWordChar(c: number): boolean {
  return (
    (c >= 0x61 && c <= 0x7a) || // a-z
    (c >= 0x41 && c <= 0x5a) || // A-Z
    (c >= 0x30 && c <= 0x39) || // 0-9
    c === 0x5f || // _
    c === 0x2d || // -
    c === 0x2a // * (only valid in selector patterns; the parser checks where it appears)
  );
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

/** `line L, column C` (1-based) of an offset, so multi-line conditions point at the right place. */
function describePosition(text: string, pos: number): string {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < pos && i < text.length; i++) {
    if (text.charCodeAt(i) === 0x0a) {
      line++;
      lineStart = i + 1;
    }
  }
  const col = pos - lineStart + 1;
  return line === 1 ? `column ${col}` : `line ${line}, column ${col}`;
}

export function conditionError(text: string, pos: number, message: string): SigmaError {
  return new SigmaError('condition', 'InvalidCondition', `invalid condition at ${describePosition(text, pos)}: ${message}`);
}

/**
 * Maximal runs of identifier characters first, keyword classification second, so `not_filter` and
 * `notepad` stay identifiers (rsigma behaviour, [REC] in sigma-semantics §4.2).
 */
export function tokenizeCondition(text: string): ConditionToken[] {
  if (text.length > MAX_CONDITION_LENGTH) {
    throw new SigmaError(
      'condition',
      'InvalidCondition',
      `invalid condition: longer than ${MAX_CONDITION_LENGTH} characters`,
    );
  }
  const tokens: ConditionToken[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (isSpace(c)) {
      i++;
    } else if (c === 0x28 || c === 0x29) {
      tokens.push({ t: c === 0x28 ? '(' : ')', pos: i });
      i++;
    } else if (isWordChar(c)) {
      const start = i;
      while (i < text.length && isWordChar(text.charCodeAt(i))) i++;
      const word = text.slice(start, i);
      if (KEYWORDS.has(word)) {
        tokens.push({ t: 'kw', kw: word as ConditionKeyword, pos: start });
      } else if (KEYWORDS.has(word.toLowerCase())) {
        throw conditionError(text, start, `operator '${word}' must be lowercase`);
      } else {
        tokens.push({ t: 'word', text: word, pos: start });
      }
    } else if (c === 0x7c) {
      throw conditionError(
        text,
        i,
        "the '|' aggregation syntax is deprecated and not supported; use a correlation rule instead",
      );
    } else {
      throw conditionError(text, i, `unexpected character '${String.fromCodePoint(text.codePointAt(i) ?? c)}'`);
    }
  }
  tokens.push({ t: 'end', pos: text.length });
  return tokens;
}
