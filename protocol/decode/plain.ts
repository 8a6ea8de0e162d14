import type { JsonEvent } from './decoded-event.js';

/** A plain-text line: a keyword-only event whose one value is the line (`{"_raw": line}`). */
export function decodePlain(line: string): JsonEvent {
  return { _raw: line };
}
