// The field keys an event contributes to the field observer (daemon-semantics §13.1): the dot-joined
// paths of its leaf values. Nested objects are descended (at most MAX_DEPTH levels); arrays are leaves;
// an empty nested object contributes nothing; a non-object root contributes nothing.
import { MAX_DEPTH } from '../engine/field-path.js';

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function collect(obj: Record<string, unknown>, prefix: string, depth: number, out: string[]): void {
  for (const k in obj) {
    if (!Object.hasOwn(obj, k)) continue;
    const v = obj[k];
    const path = prefix === '' ? k : `${prefix}.${k}`;
    if (isRecord(v)) {
      if (depth < MAX_DEPTH) collect(v, path, depth + 1, out);
    } else out.push(path);
  }
}

/** The leaf paths of a JSON event, in document order (a path written twice, flat and nested, appears twice). */
export function fieldKeys(event: unknown): string[] {
  const out: string[] = [];
  if (isRecord(event)) collect(event, '', 1, out);
  return out;
}
