// A fast reader for the plain block-style YAML nearly every Sigma rule file is written in: block
// mappings and sequences, one-line plain and quoted scalars, `|`/`>` block scalars, `---` separators.
// Anything outside that subset (anchors, tags, flow collections, multi-line plain scalars, escapes,
// duplicate keys, odd documents, ...) returns `undefined` and the caller uses the full `yaml` parser,
// which then owns every error message. On the subset the result equals what `yaml-documents.ts`
// builds from the full parser (YAML 1.2 core schema, pySigma's zero-padded integers kept as strings).
import { setOwn } from './plain-data.js';

/** Thrown (and caught here) when the text leaves the subset. */
class Unsupported extends Error {}

// Tabs, CR, BOM, control characters, and Unicode spaces (which JavaScript's trim removes but YAML keeps
// as content): the full parser decides what they mean.
const UNUSUAL_CHARACTER = /[\u0000-\u0008\u000b-\u001f\u007f-\u00a0\t\r\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]/;
// Characters that cannot start a plain scalar or key here (YAML indicators, kept conservative).
const INDICATOR = new Set(['-', '?', ':', ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', "'", '"', '%', '@', '`']);
const FLOW_CHARACTER = /[[\]{},#]/;
const MAX_DEPTH = 48;
const MAX_KEY_LENGTH = 1024;

const NULL = /^(?:~|[Nn]ull|NULL)$/;
const BOOL = /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/;
/** Zero-padded integers, which stay strings (PyYAML's reading, what rule authors test with). */
export const LEADING_ZERO_INT = /^[-+]?0[0-9]+$/;
const INT = /^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$/;
const FLOAT_SPECIAL = /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/;
const FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$|^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/;

/** Plain values of every document of `text`, or `undefined` when the text needs the full parser. */
export function readBlockYaml(text: string): unknown[] | undefined {
  if (UNUSUAL_CHARACTER.test(text)) return undefined;
  try {
    return new BlockReader(text).documents();
  } catch (e) {
    if (e instanceof Unsupported) return undefined;
    throw e;
  }
}

function unsupported(): never {
  throw new Unsupported();
}

function indentOf(line: string): number {
  let i = 0;
  while (line.charCodeAt(i) === 32) i++;
  return i;
}

class BlockReader {
  private readonly lines: string[];
  private readonly endsWithNewline: boolean;
  /** Next line to read. */
  private at = 0;
  /** End (exclusive) of the current document's lines. */
  private end = 0;

  constructor(text: string) {
    this.lines = text.split('\n');
    this.endsWithNewline = text.endsWith('\n');
  }

  documents(): unknown[] {
    const bounds = this.documentBounds();
    const out: unknown[] = [];
    for (const [start, end] of bounds) {
      this.at = start;
      this.end = end;
      const first = this.nextContent();
      if (first === this.end || indentOf(this.line(first)) !== 0) unsupported();
      out.push(this.node(0, 0));
      if (this.nextContent() !== this.end) unsupported();
    }
    if (out.length === 0) unsupported();
    return out;
  }

  // Documents are split at `---` lines; a first part holding only comments is no document.
  private documentBounds(): [number, number][] {
    const bounds: [number, number][] = [];
    let start = 0;
    const close = (end: number, separator: boolean) => {
      if (this.hasContent(start, end)) bounds.push([start, end]);
      else if (start > 0 || !separator) unsupported();
    };
    this.lines.forEach((line, i) => {
      if (line.startsWith('---') || line.startsWith('...') || line.startsWith('%')) {
        if (line !== '---') unsupported();
        close(i, true);
        start = i + 1;
      }
    });
    close(this.lines.length, false);
    return bounds;
  }

  private hasContent(start: number, end: number): boolean {
    for (let i = start; i < end; i++) if (!isBlankOrComment(this.line(i))) return true;
    return false;
  }

  private line(i: number): string {
    return this.lines[i] ?? '';
  }

  /** Index of the next line that is neither blank nor a comment (or the document end). */
  private nextContent(): number {
    let i = this.at;
    while (i < this.end && isBlankOrComment(this.line(i))) i++;
    return i;
  }

  /** A block node whose first line is the next content line, at exactly `indent`. */
  private node(indent: number, depth: number): unknown {
    if (depth > MAX_DEPTH) unsupported();
    return isSequenceItemAt(this.line(this.nextContent()), indent) ? this.sequence(indent, depth) : this.mapping(indent, depth, undefined);
  }

  /** Block mapping at `indent`; `first` is an entry already read from a `- key: value` line. */
  private mapping(indent: number, depth: number, first: string | undefined): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    if (first !== undefined) this.entry(out, first, indent, depth);
    for (;;) {
      const i = this.nextContent();
      if (i === this.end) return out;
      const line = this.line(i);
      const n = indentOf(line);
      if (n < indent) return out;
      if (n > indent) unsupported();
      this.at = i + 1;
      this.entry(out, line.slice(n), indent, depth);
    }
  }

  private entry(out: Record<string, unknown>, content: string, indent: number, depth: number): void {
    const { key, rest } = splitKey(content);
    if (Object.hasOwn(out, key)) unsupported();
    setOwn(out, key, this.value(rest, indent, depth + 1, true));
  }

  private sequence(indent: number, depth: number): unknown[] {
    const out: unknown[] = [];
    for (;;) {
      const i = this.nextContent();
      if (i === this.end) return out;
      const line = this.line(i);
      const n = indentOf(line);
      if (n < indent) return out;
      if (n > indent) unsupported();
      // A mapping key at the indentation of a sequence that is a mapping value ends the sequence.
      if (!isSequenceItemAt(line, n)) return out;
      this.at = i + 1;
      const after = line.slice(n + 1);
      const column = indent + 1 + indentOf(after);
      const item = after.trimStart();
      if (item !== '' && item[0] !== '#' && looksLikeKey(item)) out.push(this.mapping(column, depth + 1, item));
      else out.push(this.value(item, indent, depth + 1, false));
    }
  }

  /**
   * The value after `key:` or `-` (already without leading spaces) of an entry at `indent`. A mapping
   * value may be a sequence at the key's own indentation.
   */
  private value(text: string, indent: number, depth: number, inMapping: boolean): unknown {
    if (text === '' || text[0] === '#') {
      const i = this.nextContent();
      if (i === this.end) return null;
      const line = this.line(i);
      const n = indentOf(line);
      if (n > indent) return this.node(n, depth);
      if (n === indent && inMapping && isSequenceItemAt(line, n)) return this.node(n, depth);
      return null;
    }
    const c = text[0] ?? '';
    if (c === '|' || c === '>') return this.blockScalar(text.trimEnd(), indent);
    const value = inlineScalar(text);
    // A more indented line after a one-line scalar would continue it (or be an error): full parser.
    const i = this.nextNonBlank();
    if (i < this.end && indentOf(this.line(i)) > indent) unsupported();
    return value;
  }

  private nextNonBlank(): number {
    let i = this.at;
    while (i < this.end && isBlank(this.line(i))) i++;
    return i;
  }

  private blockScalar(header: string, indent: number): string {
    const folded = header[0] === '>';
    const chomp = header.length === 1 ? 'clip' : header[1] === '-' ? 'strip' : header[1] === '+' ? 'keep' : unsupported();
    if (header.length > 2) unsupported();
    const start = this.at;
    let i = start;
    while (i < this.end && isBlank(this.line(i))) i++;
    const m = i < this.end ? indentOf(this.line(i)) : 0;
    if (m <= indent) {
      // Empty block scalar; kept line breaks depend on details the full parser handles.
      if (chomp === 'keep' || i > start) unsupported();
      return '';
    }
    const body: string[] = [];
    for (let j = start; j < i; j++) {
      if (this.line(j).length > m) unsupported();
      body.push('');
    }
    while (i < this.end) {
      const line = this.line(i);
      if (isBlank(line)) {
        if (line.length > m) unsupported();
        body.push('');
      } else if (indentOf(line) >= m) {
        body.push(line.slice(m));
      } else break;
      i++;
    }
    this.at = i;
    let last = body.length - 1;
    while (last >= 0 && body[last] === '') last--;
    const trailing = body.length - 1 - last;
    // The last content line without a line break, or kept trailing breaks: the full parser decides.
    if ((start + last + 1 === this.lines.length && !this.endsWithNewline) || (chomp === 'keep' && trailing > 0)) unsupported();
    const content = body.slice(0, last + 1);
    const joined = folded ? fold(content) : content.join('\n');
    return chomp === 'strip' ? joined : `${joined}\n`;
  }
}

function isBlank(line: string): boolean {
  return indentOf(line) === line.length;
}

function isBlankOrComment(line: string): boolean {
  const n = indentOf(line);
  return n === line.length || line.charCodeAt(n) === 35;
}

/** `-` alone or followed by a space at column `at`. */
function isSequenceItemAt(line: string, at: number): boolean {
  return line.charCodeAt(at) === 45 && (line.length === at + 1 || line.charCodeAt(at + 1) === 32);
}

// Folded block scalar without more-indented lines: single breaks become spaces, empty lines breaks.
function fold(lines: readonly string[]): string {
  let out = '';
  let empties = 0;
  lines.forEach((line, i) => {
    if (line === '') {
      empties++;
      return;
    }
    if (line[0] === ' ') unsupported();
    out += i === 0 ? line : empties > 0 ? `${'\n'.repeat(empties)}${line}` : ` ${line}`;
    empties = 0;
  });
  return out;
}

function looksLikeKey(content: string): boolean {
  const c = content[0];
  if (c === "'" || c === '"') {
    const close = content.indexOf(c, 1);
    return close > 0 && /^\s*:(?: |$)/.test(content.slice(close + 1));
  }
  return content.includes(': ') || content.endsWith(':');
}

/** `key: rest` → the key and the text after the colon (leading spaces removed). */
function splitKey(content: string): { key: string; rest: string } {
  const c = content[0] ?? '';
  let key: string;
  let after: number;
  if (c === "'" || c === '"') {
    const quoted = readQuoted(content);
    key = quoted.value;
    const tail = content.slice(quoted.end);
    const colon = tail.length - tail.trimStart().length;
    if (tail[colon] !== ':') unsupported();
    after = quoted.end + colon + 1;
  } else {
    if (!canStartPlain(content)) unsupported();
    let colon = content.indexOf(': ');
    if (colon < 0 && content.endsWith(':')) colon = content.length - 1;
    if (colon < 0) unsupported();
    key = content.slice(0, colon).trimEnd();
    if (key === '' || key.length > MAX_KEY_LENGTH || key.includes(' #') || FLOW_CHARACTER.test(key)) unsupported();
    // Keys like `~` and `null`, or `1` and `01`, are the same key to the full parser (duplicates).
    if (typeof plainScalar(key) !== 'string' || LEADING_ZERO_INT.test(key)) unsupported();
    after = colon + 1;
  }
  const next = content[after];
  if (next !== undefined && next !== ' ') unsupported();
  return { key, rest: content.slice(after).trimStart() };
}

/** A quoted scalar that closes on its line; escapes in double quotes go to the full parser. */
function readQuoted(text: string): { value: string; end: number } {
  const q = text[0];
  if (q === '"') {
    const close = text.indexOf('"', 1);
    if (close < 0) unsupported();
    const value = text.slice(1, close);
    if (value.includes('\\')) unsupported();
    return { value, end: close + 1 };
  }
  let i = 1;
  for (;;) {
    const close = text.indexOf("'", i);
    if (close < 0) unsupported();
    if (text[close + 1] === "'") {
      i = close + 2;
      continue;
    }
    return { value: text.slice(1, close).replaceAll("''", "'"), end: close + 1 };
  }
}

/** A scalar written on one line (possibly followed by a comment). */
function inlineScalar(text: string): unknown {
  const c = text[0] ?? '';
  if (c === "'" || c === '"') {
    const quoted = readQuoted(text);
    const tail = text.slice(quoted.end);
    const trimmed = tail.trimStart();
    if (trimmed !== '' && !(trimmed[0] === '#' && trimmed.length < tail.length)) unsupported();
    return quoted.value;
  }
  if (c === '[' && text.trimEnd() === '[]') return [];
  if (c === '{' && text.trimEnd() === '{}') return {};
  if (!canStartPlain(text)) unsupported();
  const hash = text.indexOf(' #');
  const plain = (hash < 0 ? text : text.slice(0, hash)).trimEnd();
  if (plain.includes(': ') || plain.endsWith(':')) unsupported();
  return plainScalar(plain);
}

// `-foo` is a plain scalar; `- foo` is a sequence item and other indicators are left to the full parser.
function canStartPlain(text: string): boolean {
  const c = text[0] ?? '';
  if (c === '-') return text.length > 1 && text[1] !== ' ';
  return c !== '' && !INDICATOR.has(c);
}

/** YAML 1.2 core schema resolution of a plain scalar. */
function plainScalar(s: string): unknown {
  const c = s.charCodeAt(0);
  // Only scalars starting with a digit, sign, dot, `~` or a letter of null/true/false can be non-strings.
  const maybeTyped = (c >= 48 && c <= 57) || c === 43 || c === 45 || c === 46 || c === 126 || c === 110 || c === 78 || c === 116 || c === 84 || c === 102 || c === 70;
  if (!maybeTyped) return s;
  if (NULL.test(s)) return null;
  if (BOOL.test(s)) return s[0] === 't' || s[0] === 'T';
  // YAML 1.2 reads `00000429` as 429; PyYAML (what rule authors test with) keeps it a string.
  if (LEADING_ZERO_INT.test(s)) return s;
  if (INT.test(s)) {
    const n = Number(BigInt(s));
    // Beyond 2^53 the full parser keeps the digits and warns.
    return Number.isSafeInteger(n) ? n : unsupported();
  }
  if (FLOAT_SPECIAL.test(s)) return s.slice(-3).toLowerCase() === 'nan' ? Number.NaN : s[0] === '-' ? -Infinity : Infinity;
  if (FLOAT.test(s)) return Number.parseFloat(s);
  return s;
}
