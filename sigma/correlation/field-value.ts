import { ABSENT, FieldPath, LeafList } from '../engine/index.js';

/** Reads one field of an event; `undefined` when absent. */
export type FieldReader = (event: unknown, path: string) => unknown;

/**
 * A reader with the engine's field semantics (so group-by, values and timestamps resolve like
 * detection fields) that parses each path once and reuses one fan-out buffer: reading allocates
 * nothing. A value that fans out over arrays comes back as an opaque object (never a scalar), which
 * every correlation use treats as "no value".
 */
export function createFieldReader(): FieldReader {
  const paths = new Map<string, FieldPath>();
  const pool = new LeafList();
  return (event, name) => {
    let path = paths.get(name);
    if (path === undefined) {
      path = new FieldPath(name);
      paths.set(name, path);
    }
    const v = path.resolve(event, pool);
    return v === ABSENT ? undefined : v;
  };
}

/**
 * A group-key or value-count component: strings as they are, numbers and booleans stringified;
 * absent, null, objects and arrays are `null` (the "absent" marker).
 */
export function renderScalar(v: unknown): string | null {
  switch (typeof v) {
    case 'string':
      return v;
    case 'number':
    case 'boolean':
    case 'bigint':
      return String(v);
    default:
      return null;
  }
}

/** A finite number from a number or a numeric string; undefined otherwise. */
export function numericValue(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (typeof v === 'string' && v.trim() !== '') {
    const n = Number(v);
    return Number.isFinite(n) ? n : undefined;
  }
  return undefined;
}
