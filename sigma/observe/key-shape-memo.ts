// A value computed once per event shape, the shape being the event's own (top-level) keys in order. A
// stream mostly repeats a few shapes, so per-event work that depends on the keys alone (which schema
// signatures can possibly match, which leaf paths a flat event has) is done once per shape.

/** Shapes remembered; past it the memo starts over (key sets come from outside: memory stays bounded). */
const MAX_SHAPES = 1_024;

interface Entry<T> {
  /** The shape's keys: the same array for every event of the shape. */
  readonly keys: readonly string[];
  readonly value: T;
}

/** Same keys in the same order. */
export function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export class KeyShapeMemo<T> {
  private readonly byShape = new Map<string, Entry<T>>();
  private last: Entry<T> | undefined;

  /** `compute` runs on the keys of a shape not seen yet (or forgotten). */
  constructor(private readonly compute: (keys: readonly string[]) => T) {}

  /** The value of the event's shape. */
  get(event: Readonly<Record<string, unknown>>): T {
    const keys = Object.keys(event);
    // Consecutive events mostly share a shape: comparing keys (interned strings) is cheaper than a lookup.
    if (this.last !== undefined && sameKeys(this.last.keys, keys)) return this.last.value;
    const id = JSON.stringify(keys);
    let entry = this.byShape.get(id);
    if (entry === undefined) {
      if (this.byShape.size >= MAX_SHAPES) this.byShape.clear();
      entry = { keys, value: this.compute(keys) };
      this.byShape.set(id, entry);
    }
    this.last = entry;
    return entry.value;
  }
}
