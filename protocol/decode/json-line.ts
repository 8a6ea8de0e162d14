import { describeJsonKind, isJsonObject, type DecodeResult } from './decoded-event.js';

/** One NDJSON line → its event. Only objects are events; arrays and scalars are parse errors. */
export function decodeJsonLine(line: string): DecodeResult {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (e) {
    return { ok: false, error: `invalid JSON: ${e instanceof Error ? e.message : String(e)}` };
  }
  if (!isJsonObject(value)) return { ok: false, error: `expected a JSON object, got ${describeJsonKind(value)}` };
  return { ok: true, event: value };
}
