// A batch detected as parts on several workers at once (issue 19 §4): with a few large requests in
// flight, a whole batch per worker left a worker idle whenever only one request was being detected
// (the others waiting for their commit, answer and next body). Detection is pure per line, so the
// parts' answers joined in line order are the batch's answer, byte for byte.
import type { UnitLines } from '../../protocol/index.js';
import type { ObservedBatch } from '../observe/index.js';
import type { CorrelationInput, DetectedBatch } from './detect-batch.js';

/** Below this many lines per part a batch is not split: a part's messages would cost more than they win. */
export const MIN_PART_LINES = 64;

/** Where each part of `lines` lines begins, `ways` parts at most (none smaller than `MIN_PART_LINES`); ascending, from 0. */
export function partStarts(lines: number, ways: number): number[] {
  const parts = Math.max(1, Math.min(ways, Math.floor(lines / MIN_PART_LINES)));
  // Sizes differ by one at most, so none falls under lines / parts.
  return Array.from({ length: parts }, (_, i) => Math.floor((i * lines) / parts));
}

/** The lines of each part starting at `starts`. */
export function splitLines(lines: UnitLines, starts: readonly number[]): UnitLines[] {
  return starts.map((start, i) => lines.slice(start, starts[i + 1] ?? lines.length));
}

/** The batch's answer from its parts' answers (in part order), line indexes shifted by each part's start. */
export function joinDetected(parts: readonly DetectedBatch[], starts: readonly number[]): DetectedBatch {
  if (parts.length === 1) return parts[0] as DetectedBatch;
  const parseErrors: number[] = [];
  const texts: string[] = [];
  const correlate: CorrelationInput[] = [];
  let textCount = 0;
  for (const p of parts) textCount += p.texts.length;
  const textLines = new Int32Array(textCount);
  const textRules = new Int32Array(textCount);
  let pruned = 0;
  let without = 0;
  let seconds = 0;
  let unknownSchema: number | undefined;
  const observed: ObservedBatch[] = [];
  parts.forEach((p, i) => {
    const start = starts[i] as number;
    for (const line of p.parseErrors) parseErrors.push(line + start);
    for (let k = 0; k < p.texts.length; k++) {
      textLines[texts.length] = (p.textLines[k] as number) + start;
      textRules[texts.length] = p.textRules[k] as number;
      texts.push(p.texts[k] as string);
    }
    for (const c of p.correlate) correlate.push({ ...c, line: c.line + start });
    pruned += p.rulesPrunedByLogsource;
    without += p.eventsWithoutLogsource;
    seconds += p.seconds;
    if (p.unknownSchema !== undefined) unknownSchema = (unknownSchema ?? 0) + p.unknownSchema;
    if (p.observed !== undefined) observed.push(...p.observed);
  });
  return {
    parseErrors,
    texts,
    textLines,
    textRules,
    correlate,
    rulesPrunedByLogsource: pruned,
    eventsWithoutLogsource: without,
    seconds,
    ...(observed.length > 0 ? { observed } : {}),
    ...(unknownSchema !== undefined ? { unknownSchema } : {}),
  };
}
