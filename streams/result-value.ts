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
 * pipeline each add theirs). A result without `enrichments` (the usual case) has the object appended
 * to its text rather than the whole result re-serialised. The value moves to the new line and gains
 * the key in place (copying a parsed result costs a good part of parsing it); the old line keeps its
 * text only, so no line's value disagrees with its text.
 */
export function withEnrichments(line: CommittedResult, added: Readonly<Record<string, unknown>>): CommittedResult {
  const value = resultValue(line) as ResultValue;
  line.value = undefined;
  const { result_id, head } = line;
  const existing = value['enrichments'];
  if (existing === undefined && line.text.endsWith('}')) {
    value['enrichments'] = added;
    return { result_id, head, text: `${line.text.slice(0, -1)},"enrichments":${JSON.stringify(added)}}`, value };
  }
  value['enrichments'] = { ...(typeof existing === 'object' && existing !== null ? existing : {}), ...added };
  return { result_id, head, text: JSON.stringify(value), value };
}
