// The engine's regex (after its Python-to-JavaScript translation) spelt for each target. PostgreSQL's
// AREs are close to JavaScript: word boundaries and newline modes differ. SQLite's REGEXP (the sqlite3
// shell's built-in, ext/misc/regexp.c) knows no groups with `(?`, no back-references and few escapes, and
// has no flags. What cannot be said the same way makes the rule unconvertible, never silently different.
import type { RegexFlags } from '../engine/regex-translate.js';
import { Unconvertible } from './sql-text.js';

export interface TranslatedRegex {
  readonly source: string;
  readonly flags: RegexFlags;
}

const REPEAT = /^\{(\d+)(?:,(\d*))?\}/;
/** PostgreSQL's regex engine repeats an atom at most this many times (RE_DUPMAX). */
const PG_MAX_REPEAT = 255;

/** PostgreSQL ARE with embedded options: `p` keeps `.` off newlines like JavaScript without `s`. */
export function postgresRegex(re: TranslatedRegex): string {
  const src = re.source;
  let out = '';
  let inClass = false;
  for (let i = 0; i < src.length; i++) {
    const c = src[i] as string;
    if (c === '\\') {
      const n = src[i + 1] ?? '';
      i++;
      if ('pPk'.includes(n)) throw new Unconvertible(`regex escape \\${n} has no PostgreSQL form`);
      // ARE spells word boundaries \y and \Y; its \b is a backspace.
      if (!inClass && n === 'b') out += '\\y';
      else if (!inClass && n === 'B') out += '\\Y';
      else out += `\\${n}`;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      out += c;
      continue;
    }
    if (c === '[') {
      inClass = true;
      out += c;
      if (src[i + 1] === '^') out += src[++i];
      if (src[i + 1] === ']') out += src[++i];
      continue;
    }
    if (c === '(' && src.startsWith('(?<', i) && !src.startsWith('(?<=', i) && !src.startsWith('(?<!', i)) {
      throw new Unconvertible('named regex groups have no PostgreSQL form');
    }
    // JavaScript reads a `{` that starts no repeat count as a literal; ARE would reject it.
    const repeat = c === '{' ? REPEAT.exec(src.slice(i)) : null;
    if (repeat !== null && [repeat[1], repeat[2]].some((n) => n !== undefined && n !== '' && Number(n) > PG_MAX_REPEAT)) {
      throw new Unconvertible(`regex repeat counts above ${PG_MAX_REPEAT} have no PostgreSQL form`);
    }
    out += c === '{' && repeat === null ? '\\{' : c;
  }
  const { i, m, s } = re.flags;
  const newline = m ? (s ? 'w' : 'n') : s ? '' : 'p';
  const options = `${i ? 'i' : ''}${newline}`;
  return options === '' ? out : `(?${options})${out}`;
}

const SQLITE_ESCAPES = new Set([...'\\.+*?()[]{}^$|', ...'dDsSwWbntrfvxu']);

/** Pattern for SQLite's REGEXP; `lowerText` says the caller must compare against `lower(text)` (flag i). */
export function sqliteRegex(re: TranslatedRegex): { pattern: string; lowerText: boolean } {
  const src = re.source;
  const { i: fold, m, s } = re.flags;
  let out = '';
  let inClass = false;
  for (let k = 0; k < src.length; k++) {
    const c = src[k] as string;
    if (c === '\\') {
      const n = src[k + 1] ?? '';
      k++;
      if (inClass) {
        if (/[A-Za-z0-9-]/.test(n)) throw new Unconvertible(`regex escape \\${n} inside a class has no SQLite form`);
        out += '\\]^'.includes(n) ? `\\${n}` : n;
        continue;
      }
      if (/[0-9]/.test(n)) throw new Unconvertible('regex back-references have no SQLite form');
      if (fold && /[A-Z]/.test(n)) throw new Unconvertible(`case-insensitive regex with \\${n} has no SQLite form`);
      if (SQLITE_ESCAPES.has(n) && n !== 'B') out += `\\${n}`;
      else if (/[A-Za-z]/.test(n)) throw new Unconvertible(`regex escape \\${n} has no SQLite form`);
      else out += n;
      continue;
    }
    if (inClass) {
      // regexp.c reads a `-` before the closing bracket as an unfinished range.
      if (c === '-' && src[k + 1] === ']') throw new Unconvertible('a class ending in - has no SQLite form');
      if (c === ']') inClass = false;
      out += c;
      continue;
    }
    if (c === '[') {
      inClass = true;
      out += c;
      if (src[k + 1] === '^') out += src[++k];
      continue;
    }
    if (c === '(' && src.startsWith('(?:', k)) {
      // A plain group matches what the non-capturing one does (there are no back-references here).
      out += '(';
      k += 2;
      continue;
    }
    if (c === '(' && src[k + 1] === '?') throw new Unconvertible('regex lookaround has no SQLite form');
    if (m && (c === '^' || c === '$')) throw new Unconvertible('multi-line regex anchors have no SQLite form');
    // regexp.c's `.` crosses newlines; JavaScript's only with the s flag.
    out += c === '.' && !s ? '[^\n]' : c;
  }
  return { pattern: fold ? out.toLowerCase() : out, lowerText: fold };
}
