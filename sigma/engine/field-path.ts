// The one place that decides how a Sigma field name finds values in an event (§5.1): an exact top-level key
// wins, otherwise the dotted path is walked; arrays met on the way fan out; leaf arrays stay as they are and
// mean "any element". Every matcher and the candidate index go through here so they see the same values.

/** The field does not resolve in this event. */
export const ABSENT: unique symbol = Symbol('absent');

/** JSON nesting limit for fan-out and keyword search (§4.6). */
export const MAX_DEPTH = 64;

/** An own property of a JSON-like object, or ABSENT (inherited members such as `toString` are not fields). */
export function ownValue(obj: object, key: string): unknown {
  const v = (obj as Record<string, unknown>)[key];
  if (v === undefined || typeof v === 'function') return ABSENT;
  if (typeof v === 'object' && v !== null && !Object.hasOwn(obj, key)) return ABSENT;
  return v;
}

/**
 * A reusable list of values (fan-out results, keyword leaves). It keeps its backing array between events:
 * emptying a JS array with `length = 0` drops its storage, and the next push would allocate again.
 */
export class LeafList {
  readonly items: unknown[] = [];
  count = 0;

  clear(): void {
    this.count = 0;
  }

  push(v: unknown): void {
    if (this.count < this.items.length) this.items[this.count] = v;
    else this.items.push(v);
    this.count++;
  }

  /** A plain copy of the current values (for reports that outlive the event). */
  toArray(): unknown[] {
    return this.items.slice(0, this.count);
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export class FieldPath {
  readonly name: string;
  readonly segments: readonly string[];

  constructor(name: string) {
    this.name = name;
    this.segments = name.split('.');
  }

  /**
   * The value at this path: a scalar, an object, the event's own array, `pool` refilled with the fan-out
   * results when the path crosses arrays, or ABSENT. `pool` belongs to the caller and is reused.
   */
  resolve(event: unknown, pool: LeafList): unknown {
    if (!isRecord(event)) return ABSENT;
    const flat = ownValue(event, this.name);
    if (flat !== ABSENT || this.segments.length === 1) return flat;
    let cur: unknown = event;
    const segs = this.segments;
    for (let i = 0; i < segs.length; i++) {
      if (Array.isArray(cur)) {
        pool.clear();
        fanOut(cur, segs, i, pool, 0);
        return pool.count === 0 ? ABSENT : pool;
      }
      if (!isRecord(cur)) return ABSENT;
      cur = ownValue(cur, segs[i] as string);
      if (cur === ABSENT) return ABSENT;
    }
    return cur;
  }
}

/** Apply the rest of the path (from `from`) to every element, collecting what resolves. */
function fanOut(arr: readonly unknown[], segs: readonly string[], from: number, out: LeafList, depth: number): void {
  if (depth > MAX_DEPTH) return;
  for (let k = 0; k < arr.length; k++) {
    let cur: unknown = arr[k];
    let i = from;
    for (; i < segs.length; i++) {
      if (Array.isArray(cur)) break;
      if (!isRecord(cur)) {
        cur = ABSENT;
        break;
      }
      cur = ownValue(cur, segs[i] as string);
      if (cur === ABSENT) break;
    }
    if (cur === ABSENT) continue;
    if (i < segs.length) fanOut(cur as readonly unknown[], segs, i, out, depth + 1);
    else out.push(cur);
  }
}

/**
 * Refill `out` with every scalar leaf the keyword search looks at (§5.8): strings, numbers and booleans,
 * through objects (values only, never keys) and arrays, skipping nulls, at most MAX_DEPTH levels deep.
 */
export function collectKeywordLeaves(value: unknown, out: LeafList, depth: number): void {
  if (depth > MAX_DEPTH) return;
  const t = typeof value;
  if (t === 'string' || t === 'number' || t === 'boolean') {
    out.push(value);
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) collectKeywordLeaves(value[i], out, depth + 1);
    return;
  }
  const rec = value as Record<string, unknown>;
  for (const k in rec) {
    if (Object.hasOwn(rec, k)) collectKeywordLeaves(rec[k], out, depth + 1);
  }
}

/**
 * Field access with the engine's semantics for callers off the hot path (correlation group-by and
 * timestamps, templates): the value, fan-out results as a fresh array, or undefined when absent.
 */
export function readEventField(event: unknown, name: string): unknown {
  const pool = new LeafList();
  const v = new FieldPath(name).resolve(event, pool);
  if (v === ABSENT) return undefined;
  return v === pool ? pool.toArray() : v;
}
