/** Reads one field of an event; `undefined` when absent. The daemon passes the engine's shared accessor. */
export type FieldReader = (event: unknown, path: string) => unknown;

function isRecord(v: unknown): v is Readonly<Record<string, unknown>> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Default reader: a literal key wins, else the path is walked on dots (again preferring literal
 * remaining keys at each level). Arrays are returned as they are; callers treat them as "no scalar".
 */
export const readField: FieldReader = (event, path) => {
  if (!isRecord(event)) return undefined;
  if (Object.hasOwn(event, path)) return event[path];
  let dot = path.indexOf('.');
  while (dot > 0) {
    const head = path.slice(0, dot);
    if (Object.hasOwn(event, head)) {
      const found = readField(event[head], path.slice(dot + 1));
      if (found !== undefined) return found;
    }
    dot = path.indexOf('.', dot + 1);
  }
  return undefined;
};

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
