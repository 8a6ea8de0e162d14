/** What the index reads and keeps on an item: its oldest time and its place in the heap. */
export interface OldestIndexed {
  readonly oldest: number;
  slot: number;
}

/**
 * Items ordered by their oldest time: a binary min-heap whose keys are lower bounds of `oldest`.
 * An item's `oldest` may move up without telling the index (a result drops an entity's oldest
 * contributions on the hot path); the index re-keys such an item only when it reaches the top, so
 * finding what a cutoff expires costs nothing while nothing does, and O(log n) per item it touches.
 * A move down must be told (`lowered`), or the key would no longer be a lower bound.
 */
export class OldestIndex<T extends OldestIndexed> {
  private items: T[] = [];
  /** `keys[i]` ≤ `items[i].oldest`, kept beside the items so sifting reads no item. */
  private keys: number[] = [];

  get size(): number {
    return this.items.length;
  }

  add(item: T): void {
    item.slot = this.items.length;
    this.items.push(item);
    this.keys.push(item.oldest);
    this.up(item.slot);
  }

  /** Called after `item.oldest` may have moved down (a contribution older than the one it followed). */
  lowered(item: T): void {
    if (item.oldest >= (this.keys[item.slot] as number)) return;
    this.keys[item.slot] = item.oldest;
    this.up(item.slot);
  }

  /** An item whose `oldest` is at most `cutoff`, if any; the top's stale keys are brought up to date on the way. */
  due(cutoff: number): T | undefined {
    for (;;) {
      const top = this.items[0];
      if (top === undefined || (this.keys[0] as number) > cutoff) return undefined;
      if (top.oldest <= cutoff) return top;
      this.keys[0] = top.oldest;
      this.down(0);
    }
  }

  /** Removes the item `due` returned last (the top). */
  removeTop(): void {
    const last = this.items.pop() as T;
    const key = this.keys.pop() as number;
    if (this.items.length === 0) return;
    this.items[0] = last;
    this.keys[0] = key;
    last.slot = 0;
    this.down(0);
  }

  /** Replaces the content with `items` (a restore), in O(n). */
  rebuild(items: Iterable<T>): void {
    this.items = [...items];
    this.keys = this.items.map((item, i) => {
      item.slot = i;
      return item.oldest;
    });
    for (let i = (this.items.length >> 1) - 1; i >= 0; i--) this.down(i);
  }

  /** The items in heap order (for tests that check the index against a full scan). */
  *entries(): Iterable<{ readonly item: T; readonly key: number; readonly slot: number }> {
    for (let i = 0; i < this.items.length; i++) yield { item: this.items[i] as T, key: this.keys[i] as number, slot: i };
  }

  private up(i: number): void {
    const item = this.items[i] as T;
    const key = this.keys[i] as number;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const pk = this.keys[parent] as number;
      if (pk <= key) break;
      this.place(parent, i, pk);
      i = parent;
    }
    this.put(item, key, i);
  }

  private down(i: number): void {
    const n = this.items.length;
    const item = this.items[i] as T;
    const key = this.keys[i] as number;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      let ck = this.keys[child] as number;
      const right = child + 1;
      if (right < n && (this.keys[right] as number) < ck) {
        child = right;
        ck = this.keys[right] as number;
      }
      if (key <= ck) break;
      this.place(child, i, ck);
      i = child;
    }
    this.put(item, key, i);
  }

  /** Moves the item at `from` (key `key`) to `to`. */
  private place(from: number, to: number, key: number): void {
    this.put(this.items[from] as T, key, to);
  }

  private put(item: T, key: number, i: number): void {
    this.items[i] = item;
    this.keys[i] = key;
    item.slot = i;
  }
}
