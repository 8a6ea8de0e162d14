// The field keys an event contributes to the field observer (daemon-semantics §13.1): the dot-joined
// paths of its leaf values. Nested objects are descended (at most MAX_DEPTH levels); arrays are leaves;
// an empty nested object contributes nothing; a non-object root contributes nothing.
import { MAX_DEPTH } from '../engine/field-path.js';
import { KeyShapeMemo } from './key-shape-memo.js';

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Returns whether a key holds a dot: only then can two leaves share a path (`{"a.b":1,"a":{"b":2}}`). */
function collect(obj: Record<string, unknown>, prefix: string, depth: number, out: string[]): boolean {
  let dotted = false;
  // Own enumerable keys in document order; `Object.keys` reads V8's enum cache, much cheaper than `for in`.
  const own = Object.keys(obj);
  for (let i = 0; i < own.length; i++) {
    const k = own[i] as string;
    const v = obj[k];
    const path = prefix === '' ? k : `${prefix}.${k}`;
    if (k.includes('.')) dotted = true;
    if (isRecord(v)) {
      if (depth < MAX_DEPTH && collect(v, path, depth + 1, out)) dotted = true;
    } else out.push(path);
  }
  return dotted;
}

/** The leaf paths of a JSON event, in document order; a path written twice (flat and nested) appears once, where first written. */
export function fieldKeys(event: unknown): string[] {
  const out: string[] = [];
  if (isRecord(event) && collect(event, '', 1, out)) return [...new Set(out)];
  return out;
}

/**
 * `fieldKeys` for a stream of events: a flat event's leaf paths are its own keys, returned as one
 * array for every event of its shape (so a caller can compare them by identity); only events with a
 * nested object are walked.
 */
export class LeafPaths {
  private readonly shapes = new KeyShapeMemo((keys) => keys);

  of(event: unknown): readonly string[] {
    if (!isRecord(event)) return [];
    const keys = this.shapes.get(event);
    for (let i = 0; i < keys.length; i++) if (isRecord(event[keys[i] as string])) return fieldKeys(event);
    return keys;
  }
}
