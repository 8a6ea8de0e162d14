import { describeJsonKind, isJsonObject, type JsonEvent } from './decoded-event.js';

/** One object read from a JSON file, or a malformed part that was skipped; `offset` is a string index. */
export type JsonObjectItem =
  | { readonly ok: true; readonly event: JsonEvent; readonly offset: number }
  | { readonly ok: false; readonly error: string; readonly offset: number };

const isSpace = (c: string | undefined): boolean => c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\ufeff';

/** Index just past a string literal that opens at `p` (or the end of the text when unterminated). */
function skipString(text: string, p: number): number {
  let i = p + 1;
  while (i < text.length) {
    const c = text[i];
    if (c === '\\') i += 2;
    else if (c === '"') return i + 1;
    else i++;
  }
  return text.length;
}

/** Index just past the bracket that closes the object/array opening at `p`, or -1 if the text ends first. */
function findValueEnd(text: string, p: number): number {
  let depth = 0;
  let i = p;
  while (i < text.length) {
    const c = text[i];
    if (c === '"') {
      i = skipString(text, i);
      continue;
    }
    if (c === '{' || c === '[') depth++;
    else if ((c === '}' || c === ']') && --depth === 0) return i + 1;
    i++;
  }
  return -1;
}

/** Leading whitespace of the line holding `p`, or -1 when something else precedes `p` on that line. */
function indentOf(text: string, p: number): number {
  let i = p - 1;
  while (i >= 0 && text[i] !== '\n') {
    if (!isSpace(text[i])) return -1;
    i--;
  }
  return p - i - 1;
}

/**
 * Where to resume after an unterminated object: the next line that opens an object at the same or a
 * smaller indentation (the next sibling in a pretty-printed file), or -1.
 */
function nextSiblingStart(text: string, p: number): number {
  const indent = indentOf(text, p);
  for (let nl = text.indexOf('\n', p); nl !== -1; nl = text.indexOf('\n', nl + 1)) {
    let i = nl + 1;
    while (i < text.length && (text[i] === ' ' || text[i] === '\t')) i++;
    if (text[i] === '{' && (indent < 0 || i - nl - 1 <= indent)) return i;
  }
  return -1;
}

/** End of a run of content that is not an object: up to the next `{`, `[` or (inside an array) `]`. */
function skipStray(text: string, p: number, inArray: boolean): number {
  let i = p;
  while (i < text.length) {
    const c = text[i];
    if (c === '{' || c === '[' || (inArray && c === ']')) break;
    i = c === '"' ? skipString(text, i) : i + 1;
  }
  return i;
}

function strayError(part: string): string {
  const trimmed = part.replace(/[\s,]+$/, '');
  try {
    return `expected a JSON object, got ${describeJsonKind(JSON.parse(trimmed))}`;
  } catch {
    return `unexpected content '${trimmed.length > 40 ? `${trimmed.slice(0, 40)}…` : trimmed}'`;
  }
}

/**
 * Reads every JSON object from a file that holds concatenated objects (pretty-printed or one per line,
 * optionally comma-separated) or JSON arrays of objects, as some SigmaHQ regression files do.
 * Malformed parts are reported with their offset and skipped; reading resumes at the next object.
 */
export function* readJsonObjects(text: string): Generator<JsonObjectItem, void, undefined> {
  let p = 0;
  let arrayStart = -1;
  for (;;) {
    while (p < text.length && (isSpace(text[p]) || text[p] === ',')) p++;
    if (p >= text.length) break;
    const c = text[p];
    if (c === '[' && arrayStart < 0) {
      arrayStart = p++;
    } else if (c === ']' && arrayStart >= 0) {
      arrayStart = -1;
      p++;
    } else if (c === '{' || c === '[') {
      const end = findValueEnd(text, p);
      if (end < 0) {
        yield { ok: false, error: 'unterminated JSON value', offset: p };
        const next = nextSiblingStart(text, p);
        if (next < 0) return;
        p = next;
        continue;
      }
      yield parseSegment(text.slice(p, end), p);
      p = end;
    } else {
      const end = skipStray(text, p, arrayStart >= 0);
      yield { ok: false, error: strayError(text.slice(p, end)), offset: p };
      p = end;
    }
  }
  if (arrayStart >= 0) yield { ok: false, error: 'unterminated JSON array', offset: arrayStart };
}

function parseSegment(segment: string, offset: number): JsonObjectItem {
  let value: unknown;
  try {
    value = JSON.parse(segment);
  } catch (e) {
    return { ok: false, error: `invalid JSON: ${e instanceof Error ? e.message : String(e)}`, offset };
  }
  return isJsonObject(value)
    ? { ok: true, event: value, offset }
    : { ok: false, error: `expected a JSON object, got ${describeJsonKind(value)}`, offset };
}
