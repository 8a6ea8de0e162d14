/**
 * Reads one field of an event; `undefined` when absent. Defaults to the engine's accessor
 * (`readEventField`), so group-by, values and timestamps resolve like detection fields.
 */
export type FieldReader = (event: unknown, path: string) => unknown;

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
