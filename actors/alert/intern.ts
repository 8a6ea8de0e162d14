/**
 * Equal immutable values held once: stores keep thousands of entries whose small parts (rule ids,
 * levels, tactic lists, refs) repeat. Bounded: past `cap` keys a value is simply not shared.
 */
export class InternTable<T> {
  private readonly values = new Map<string, T>();

  constructor(private readonly cap = 10_000) {}

  get(key: string, make: () => T): T {
    let v = this.values.get(key);
    if (v === undefined) {
      v = make();
      if (this.values.size < this.cap) this.values.set(key, v);
    }
    return v;
  }
}
