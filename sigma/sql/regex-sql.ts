// The engine's regex (after its Python-to-JavaScript translation) spelt for each target. The engine's
// JavaScript regexes read \d, \w, \s and \b with JavaScript's fixed sets, whatever the database's locale
// says; `.` stops at all four JavaScript line terminators. PostgreSQL's AREs get those sets spelt out;
// SQLite's REGEXP (the sqlite3 shell's built-in, ext/misc/regexp.c) knows no groups with `(?`, no
// back-references and few escapes, and has no flags. What cannot be said the same way makes the rule
// unconvertible, never silently differs.
import type { RegexFlags } from '../engine/regex-translate.js';
import { Unconvertible } from './sql-text.js';

export interface TranslatedRegex {
  readonly source: string;
  readonly flags: RegexFlags;
  /** Compiled with JavaScript's `u` flag (the engine's fallback): `\u{…}` and `\p{…}` exist, `i` folds more. */
  readonly unicode?: boolean;
}

/** One piece of a JavaScript regex source: an escape (`\x`, `text` = x), or one character. */
interface RegexToken {
  readonly text: string;
  readonly escape: boolean;
  /** Inside a bracket expression (the brackets themselves are not). */
  readonly inClass: boolean;
  /** The source from this token on, for look-ahead. */
  readonly rest: string;
}

function regexTokens(src: string): RegexToken[] {
  const out: RegexToken[] = [];
  let inClass = false;
  for (let i = 0; i < src.length; i++) {
    const c = src[i] as string;
    const rest = src.slice(i);
    if (c === '\\') {
      out.push({ text: src[i + 1] ?? '', escape: true, inClass, rest });
      i++;
      continue;
    }
    if (inClass && c === ']') inClass = false;
    out.push({ text: c, escape: false, inClass, rest });
    if (!inClass && c === '[') {
      inClass = true;
      // `[^` and a `]` right after the opening bracket belong to the class (JavaScript has escaped it).
      if (src[i + 1] === '^') out.push({ text: src[++i] as string, escape: false, inClass, rest: src.slice(i) });
    }
  }
  return out;
}

// JavaScript's sets, as the contents of a bracket expression (PostgreSQL escapes).
const WORD = 'A-Za-z0-9_';
const SPACE = String.raw`\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff`;
const LINE_TERMINATORS = String.raw`\n\r\u2028\u2029`;
const CLASS_CONTENTS: Readonly<Record<string, string>> = { d: '0-9', w: WORD, s: SPACE };
const OUTSIDE_CLASS: Readonly<Record<string, string>> = {
  d: '[0-9]',
  D: '[^0-9]',
  w: `[${WORD}]`,
  W: `[^${WORD}]`,
  s: `[${SPACE}]`,
  S: `[^${SPACE}]`,
  b: `(?:(?<=[${WORD}])(?![${WORD}])|(?<![${WORD}])(?=[${WORD}]))`,
  B: `(?:(?<=[${WORD}])(?=[${WORD}])|(?<![${WORD}])(?![${WORD}]))`,
};
/** Escapes both flavours read alike (control characters; `\0` is NUL in both). */
const SAME_ESCAPES = new Set([...'ntrvf0c']);
const HEX2 = /^\\x([0-9A-Fa-f]{2})/;
const HEX4 = /^\\u[0-9A-Fa-f]{4}/;
/** `\uD800`–`\uDFFF`: half of a UTF-16 pair to JavaScript, no character at all to a UTF-8 database. */
const SURROGATE = /^\\u[dD][89a-fA-F]/;

function refuseSurrogate(t: RegexToken, target: string): void {
  if (t.text === 'u' && SURROGATE.test(t.rest)) throw new Unconvertible(`regex escape ${t.rest.slice(0, 6)} (half of a UTF-16 pair) has no ${target} form`);
}

const REPEAT = /^\{(\d+)(?:,(\d*))?\}/;
/** PostgreSQL's regex engine repeats an atom at most this many times (RE_DUPMAX). */
const PG_MAX_REPEAT = 255;

/** One JavaScript escape as an ARE; `skip` counts the source characters it consumed beyond `\x`. */
function postgresEscape(t: RegexToken, re: TranslatedRegex): { text: string; skip: number } {
  const n = t.text;
  refuseSurrogate(t, 'PostgreSQL');
  if (re.unicode === true && re.flags.i && 'wWbB'.includes(n)) {
    throw new Unconvertible(`case-insensitive Unicode regex with \\${n} has no PostgreSQL form`);
  }
  if (re.unicode === true && 'pPu'.includes(n) && !HEX4.test(t.rest)) throw new Unconvertible(`regex escape \\${n}{…} has no PostgreSQL form`);
  if (n === 'k') throw new Unconvertible('named back-references have no PostgreSQL form');
  // JavaScript reads \c before a non-letter and \0 before a digit as something an ARE does not.
  if ((n === 'c' && !/^\\c[A-Za-z]/.test(t.rest)) || (n === '0' && /^\\0[0-9]/.test(t.rest))) {
    throw new Unconvertible(`regex escape \\${n} here has no PostgreSQL form`);
  }
  const hex = n === 'x' ? HEX2.exec(t.rest) : null;
  if (hex !== null) return { text: `\\u00${hex[1] as string}`, skip: 2 };
  if (n === 'u' && HEX4.test(t.rest)) return { text: t.rest.slice(0, 6), skip: 4 };
  if (t.inClass) {
    // Inside a class JavaScript reads \b as backspace (so does an ARE) and \1 as an octal escape.
    if (n === 'b') return { text: '\\b', skip: 0 };
    if (/[1-9]/.test(n)) throw new Unconvertible('octal escapes in a regex class have no PostgreSQL form');
    const contents = CLASS_CONTENTS[n];
    if (contents !== undefined) return { text: contents, skip: 0 };
    if ('DWS'.includes(n)) throw new Unconvertible(`regex escape \\${n} inside a class has no PostgreSQL form`);
  } else {
    const set = OUTSIDE_CLASS[n];
    if (set !== undefined) return { text: set, skip: 0 };
    if (/[1-9]/.test(n)) return { text: `\\${n}`, skip: 0 };
  }
  if (SAME_ESCAPES.has(n)) return { text: `\\${n}`, skip: 0 };
  // Any other letter is itself in JavaScript (without `u`); in an ARE most letters are escapes (\y, \m, \e...).
  if (/[A-Za-z]/.test(n)) return { text: n, skip: 0 };
  return { text: `\\${n}`, skip: 0 };
}

/**
 * PostgreSQL ARE with embedded options. No newline-sensitive mode: it would also keep negated classes off
 * newlines, which JavaScript's are not; `.` and the `m` anchors spell JavaScript's line terminators out.
 */
export function postgresRegex(re: TranslatedRegex): string {
  const { i, m, s } = re.flags;
  let out = '';
  let skip = 0;
  for (const t of regexTokens(re.source)) {
    if (skip > 0) {
      skip--;
      continue;
    }
    if (t.escape) {
      const e = postgresEscape(t, re);
      out += e.text;
      skip = e.skip;
      continue;
    }
    if (t.inClass) {
      // `[:`, `[.` and `[=` open classes, collating elements and equivalence classes in an ARE.
      if (t.text === '[' && ':.='.includes(t.rest[1] ?? ']')) throw new Unconvertible(`regex class with [${t.rest[1] as string} has no PostgreSQL form`);
      out += t.text;
      continue;
    }
    if (t.rest.startsWith('[]') || t.rest.startsWith('[^]')) throw new Unconvertible('empty regex classes have no PostgreSQL form');
    if (t.rest.startsWith('(?<') && !t.rest.startsWith('(?<=') && !t.rest.startsWith('(?<!')) {
      throw new Unconvertible('named regex groups have no PostgreSQL form');
    }
    const repeat = t.text === '{' ? REPEAT.exec(t.rest) : null;
    if (repeat !== null && [repeat[1], repeat[2]].some((n) => n !== undefined && n !== '' && Number(n) > PG_MAX_REPEAT)) {
      throw new Unconvertible(`regex repeat counts above ${PG_MAX_REPEAT} have no PostgreSQL form`);
    }
    if (t.text === '.' && !s) out += `[^${LINE_TERMINATORS}]`;
    // With `w`, ^ and $ meet \n; JavaScript's other line terminators are added.
    else if (t.text === '^' && m) out += String.raw`(?:^|(?<=[\r\u2028\u2029]))`;
    else if (t.text === '$' && m) out += String.raw`(?:$|(?=[\r\u2028\u2029]))`;
    // JavaScript reads a `{` that starts no repeat count as a literal; ARE would reject it.
    else out += t.text === '{' && repeat === null ? '\\{' : t.text;
  }
  const options = `${i ? 'i' : ''}${m ? 'w' : ''}`;
  return options === '' ? out : `(?${options})${out}`;
}

/** regexp.c reads these escaped as themselves; `\t`-like letters it reads as JavaScript does. */
const SQLITE_SPECIALS = '\\.+*?()[]{}^$|';
const SQLITE_SAME_LETTERS = new Set([...'ntrfvb']);

/** A character as regexp.c reads it literally (a code point escape keeps it readable after folding). */
function sqliteLiteral(c: string, inClass: boolean): string {
  if ((inClass ? '\\]^-' : SQLITE_SPECIALS).includes(c)) return `\\${c}`;
  if (/[A-Za-z0-9]/.test(c) || c.charCodeAt(0) >= 0xa0) return c;
  return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

function sqliteEscape(t: RegexToken, re: TranslatedRegex): { text: string; skip: number } {
  const n = t.text;
  refuseSurrogate(t, 'SQLite');
  const hex = n === 'x' ? HEX2.exec(t.rest) : n === 'u' ? HEX4.exec(t.rest) : null;
  if (hex !== null) return { text: sqliteLiteral(String.fromCharCode(parseInt(hex[0].slice(2), 16)), t.inClass), skip: hex[0].length - 2 };
  if (re.unicode === true && 'pPu'.includes(n)) throw new Unconvertible(`regex escape \\${n}{…} has no SQLite form`);
  if (t.inClass) {
    // regexp.c knows no \d, \w, \s in a class, and \b there is a backspace in JavaScript.
    const contents = CLASS_CONTENTS[n];
    if (contents !== undefined) return { text: contents, skip: 0 };
    if (/[DWSb0-9]/.test(n)) throw new Unconvertible(`regex escape \\${n} inside a class has no SQLite form`);
  } else {
    // Spelt out: regexp.c's \s lacks JavaScript's Unicode spaces, and folding would turn \W into \w.
    if (n === 'B') throw new Unconvertible('regex escape \\B has no SQLite form');
    const set = n === 'b' ? undefined : OUTSIDE_CLASS[n];
    if (set !== undefined) return { text: set, skip: 0 };
    if (/[0-9]/.test(n)) throw new Unconvertible('regex back-references have no SQLite form');
  }
  if (SQLITE_SAME_LETTERS.has(n)) return { text: `\\${n}`, skip: 0 };
  if (n === 'c' || n === 'k') throw new Unconvertible(`regex escape \\${n} has no SQLite form`);
  // Any other letter is itself in JavaScript (without `u`).
  return { text: sqliteLiteral(n, t.inClass), skip: 0 };
}

/**
 * Whether regexp.c reads the `$` that `rest` starts with as JavaScript does: it consumes the end of the
 * text, so only the closing of its groups may follow, then the pattern's end or a top-level alternative
 * (inside a group, what follows the group would follow the `$` too: `(a$|b)\b`).
 */
function endAnchorLast(rest: string, depth: number): boolean {
  let k = 1;
  while (rest[k] === ')') k++;
  return k === rest.length || (rest[k] === '|' && k - 1 === depth);
}

/** Pattern for SQLite's REGEXP; `lowerText` says the caller must compare against `lower(text)` (flag i). */
export function sqliteRegex(re: TranslatedRegex): { pattern: string; lowerText: boolean } {
  const { i: fold, m, s } = re.flags;
  let out = '';
  let skip = 0;
  /** Groups open at this token. */
  let depth = 0;
  for (const t of regexTokens(re.source)) {
    if (skip > 0) {
      skip--;
      continue;
    }
    if (t.escape) {
      const e = sqliteEscape(t, re);
      out += e.text;
      skip = e.skip;
      continue;
    }
    if (t.inClass) {
      // regexp.c reads a `-` before the closing bracket as an unfinished range.
      if (t.rest.startsWith('-]')) throw new Unconvertible('a class ending in - has no SQLite form');
      out += t.text;
      continue;
    }
    if (t.rest.startsWith('(?:')) {
      // A plain group matches what the non-capturing one does (there are no back-references here).
      out += '(';
      depth++;
      skip = 2;
      continue;
    }
    if (t.rest.startsWith('(?')) throw new Unconvertible('regex lookaround has no SQLite form');
    if (m && (t.text === '^' || t.text === '$')) throw new Unconvertible('multi-line regex anchors have no SQLite form');
    if (t.text === '$' && !endAnchorLast(t.rest, depth)) throw new Unconvertible('a regex $ with more of the pattern after it has no SQLite form');
    if (t.text === '(') depth++;
    else if (t.text === ')') depth--;
    // regexp.c's `.` crosses line terminators; JavaScript's only with the s flag.
    out += t.text === '.' && !s ? `[^${LINE_TERMINATORS}]` : t.text;
  }
  return { pattern: fold ? out.toLowerCase() : out, lowerText: fold };
}
