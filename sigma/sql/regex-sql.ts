// The engine's regex (after its Python-to-JavaScript translation) spelt for each target. PostgreSQL's
// AREs are close to JavaScript: word boundaries and newline modes differ. SQLite's REGEXP (the sqlite3
// shell's built-in, ext/misc/regexp.c) knows no groups with `(?`, no back-references and few escapes, and
// has no flags. What cannot be said the same way makes the rule unconvertible, never silently differs.
import type { RegexFlags } from '../engine/regex-translate.js';
import { Unconvertible } from './sql-text.js';

export interface TranslatedRegex {
  readonly source: string;
  readonly flags: RegexFlags;
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

const REPEAT = /^\{(\d+)(?:,(\d*))?\}/;
/** PostgreSQL's regex engine repeats an atom at most this many times (RE_DUPMAX). */
const PG_MAX_REPEAT = 255;

/** PostgreSQL ARE with embedded options: `p` keeps `.` off newlines like JavaScript without `s`. */
export function postgresRegex(re: TranslatedRegex): string {
  let out = '';
  for (const t of regexTokens(re.source)) {
    if (t.escape) {
      if ('pPk'.includes(t.text)) throw new Unconvertible(`regex escape \\${t.text} has no PostgreSQL form`);
      // ARE spells word boundaries \y and \Y; its \b is a backspace.
      const word = t.inClass ? undefined : ({ b: 'y', B: 'Y' } as Readonly<Record<string, string>>)[t.text];
      out += `\\${word ?? t.text}`;
      continue;
    }
    if (t.inClass) {
      out += t.text;
      continue;
    }
    if (t.rest.startsWith('(?<') && !t.rest.startsWith('(?<=') && !t.rest.startsWith('(?<!')) {
      throw new Unconvertible('named regex groups have no PostgreSQL form');
    }
    const repeat = t.text === '{' ? REPEAT.exec(t.rest) : null;
    if (repeat !== null && [repeat[1], repeat[2]].some((n) => n !== undefined && n !== '' && Number(n) > PG_MAX_REPEAT)) {
      throw new Unconvertible(`regex repeat counts above ${PG_MAX_REPEAT} have no PostgreSQL form`);
    }
    // JavaScript reads a `{` that starts no repeat count as a literal; ARE would reject it.
    out += t.text === '{' && repeat === null ? '\\{' : t.text;
  }
  const { i, m, s } = re.flags;
  const newline = m ? (s ? 'w' : 'n') : s ? '' : 'p';
  const options = `${i ? 'i' : ''}${newline}`;
  return options === '' ? out : `(?${options})${out}`;
}

const SQLITE_ESCAPES = new Set([...'\\.+*?()[]{}^$|', ...'dDsSwWbntrfvxu']);

function sqliteEscape(t: RegexToken, fold: boolean): string {
  const n = t.text;
  if (t.inClass) {
    if (/[A-Za-z0-9-]/.test(n)) throw new Unconvertible(`regex escape \\${n} inside a class has no SQLite form`);
    return '\\]^'.includes(n) ? `\\${n}` : n;
  }
  if (/[0-9]/.test(n)) throw new Unconvertible('regex back-references have no SQLite form');
  if (fold && /[A-Z]/.test(n)) throw new Unconvertible(`case-insensitive regex with \\${n} has no SQLite form`);
  if (SQLITE_ESCAPES.has(n)) return `\\${n}`;
  if (/[A-Za-z]/.test(n)) throw new Unconvertible(`regex escape \\${n} has no SQLite form`);
  return n;
}

/** Pattern for SQLite's REGEXP; `lowerText` says the caller must compare against `lower(text)` (flag i). */
export function sqliteRegex(re: TranslatedRegex): { pattern: string; lowerText: boolean } {
  const { i: fold, m, s } = re.flags;
  let out = '';
  let skip = 0;
  for (const t of regexTokens(re.source)) {
    if (skip > 0) {
      skip--;
      continue;
    }
    if (t.escape) {
      out += sqliteEscape(t, fold);
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
      skip = 2;
      continue;
    }
    if (t.rest.startsWith('(?')) throw new Unconvertible('regex lookaround has no SQLite form');
    if (m && (t.text === '^' || t.text === '$')) throw new Unconvertible('multi-line regex anchors have no SQLite form');
    // regexp.c's `.` crosses newlines; JavaScript's only with the s flag.
    out += t.text === '.' && !s ? '[^\n]' : t.text;
  }
  return { pattern: fold ? out.toLowerCase() : out, lowerText: fold };
}
