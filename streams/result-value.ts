import type { CommittedResult } from './batch-processor.js';

/** A committed result as a JSON object (its `result_id` included), as the enrich, risk and alert stages read it. */
export type ResultValue = Record<string, unknown>;

/**
 * The line's result as an object, parsed at most once across the stages of a batch: the first stage
 * that needs it parses the text and keeps the value on the line, later stages read it there. Readers
 * never change it; `withEnrichments` moves it to the line it makes.
 */
export function resultValue(line: CommittedResult): Readonly<ResultValue> {
  return (line.value ??= JSON.parse(line.text) as ResultValue);
}

/**
 * The line of the result with `added` merged into its `enrichments` (enrich, risk and the alert
 * pipeline each add theirs), with the bytes of re-serialising the merged result but, where it can,
 * without doing so: a result without `enrichments` (the first stage to add some) has the object
 * appended to its text; a result whose text ends with its `enrichments` (a stage before appended them)
 * has the new keys appended inside that object. The value moves to the new line and gets the merged
 * `enrichments` in place (copying a parsed result costs a good part of parsing it); the old line keeps
 * its text only, so no line's value disagrees with its text. `addedText` is `JSON.stringify(added)`, when the
 * caller can write it more cheaply.
 */
export function withEnrichments(line: CommittedResult, added: Readonly<Record<string, unknown>>, addedText?: string): CommittedResult {
  const value = resultValue(line) as ResultValue;
  line.value = undefined;
  const { result_id, head } = line;
  const existing = value['enrichments'];
  if (existing === undefined && line.text.endsWith('}')) {
    value['enrichments'] = added;
    return { result_id, head, text: `${line.text.slice(0, -1)},"enrichments":${addedText ?? JSON.stringify(added)}}`, value };
  }
  const own = typeof existing === 'object' && existing !== null ? (existing as Record<string, unknown>) : undefined;
  value['enrichments'] = { ...own, ...added };
  const text = own !== undefined && appendsInside(line.text, value, own, added) ? insideLast(line.text, addedText ?? JSON.stringify(added)) : JSON.stringify(value);
  return { result_id, head, text, value };
}

/** An array index as a key: objects list these first, not in insertion order. */
const INDEX_KEY = /^(?:0|[1-9]\d{0,9})$/;

/**
 * Whether `added` can be appended inside the `enrichments` object at the end of the text and give the
 * bytes of re-serialising: `enrichments` is the result's last key and a plain object, and every added
 * key is new to it and not an array index (either would move where the key serialises).
 */
function appendsInside(text: string, value: ResultValue, own: Record<string, unknown>, added: Readonly<Record<string, unknown>>): boolean {
  if (Array.isArray(own) || !text.endsWith('}}')) return false;
  let last: string | undefined;
  for (const k in value) last = k;
  if (last !== 'enrichments') return false;
  for (const k in added) if (k in own || INDEX_KEY.test(k)) return false;
  return true;
}

/** The text with the keys of `addedText` (an object's JSON) appended inside its trailing `enrichments` object (`{}}` at the end: an empty one, whatever undefined-valued keys the value holds). */
function insideLast(text: string, addedText: string): string {
  const keys = addedText.slice(1, -1);
  if (keys === '') return text;
  return `${text.slice(0, -2)}${text.endsWith('{}}') ? '' : ','}${keys}}}`;
}
