// A persistent sorted multiset of numbers (a treap with subtree sizes): insert, remove one occurrence
// and select by rank in O(log n) expected, each returning a new root and sharing the untouched nodes,
// so an older window that holds the previous root still sees its own values.

export interface SortedValues {
  readonly key: number;
  readonly priority: number;
  readonly size: number;
  readonly left: SortedValues | null;
  readonly right: SortedValues | null;
}

function node(key: number, priority: number, left: SortedValues | null, right: SortedValues | null): SortedValues {
  return { key, priority, size: 1 + (left?.size ?? 0) + (right?.size ?? 0), left, right };
}

// Priorities only balance the tree (its shape never changes a result), so a fixed xorshift sequence
// serves: deterministic, and no clock or global random source in the pure core.
let seed = 0x2545f491;
function nextPriority(): number {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return seed >>> 0;
}

export function sizeOf(t: SortedValues | null): number {
  return t?.size ?? 0;
}

/** Keys < key on the left, keys >= key on the right (the tree's invariant: left < node <= right). */
function split(t: SortedValues | null, key: number): [SortedValues | null, SortedValues | null] {
  if (t === null) return [null, null];
  if (t.key < key) {
    const [l, r] = split(t.right, key);
    return [node(t.key, t.priority, t.left, l), r];
  }
  const [l, r] = split(t.left, key);
  return [l, node(t.key, t.priority, r, t.right)];
}

/** Every key of `a` is below every key of `b`. */
function merge(a: SortedValues | null, b: SortedValues | null): SortedValues | null {
  if (a === null) return b;
  if (b === null) return a;
  if (a.priority > b.priority) return node(a.key, a.priority, a.left, merge(a.right, b));
  return node(b.key, b.priority, merge(a, b.left), b.right);
}

function insertWith(t: SortedValues | null, key: number, priority: number): SortedValues {
  if (t === null) return node(key, priority, null, null);
  if (priority > t.priority) {
    const [l, r] = split(t, key);
    return node(key, priority, l, r);
  }
  return key < t.key
    ? node(t.key, t.priority, insertWith(t.left, key, priority), t.right)
    : node(t.key, t.priority, t.left, insertWith(t.right, key, priority));
}

export function insert(t: SortedValues | null, key: number): SortedValues {
  return insertWith(t, key, nextPriority());
}

/** `t` without one occurrence of `key` (unchanged when absent). */
export function remove(t: SortedValues | null, key: number): SortedValues | null {
  if (t === null) return null;
  if (key === t.key) return merge(t.left, t.right);
  if (key < t.key) {
    const left = remove(t.left, key);
    return left === t.left ? t : node(t.key, t.priority, left, t.right);
  }
  const right = remove(t.right, key);
  return right === t.right ? t : node(t.key, t.priority, t.left, right);
}

/** The `rank`-th smallest key (0-based); `rank` must be below the size. */
export function select(t: SortedValues, rank: number): number {
  let cur: SortedValues = t;
  let i = rank;
  for (;;) {
    const l = sizeOf(cur.left);
    if (i < l) cur = cur.left as SortedValues;
    else if (i === l) return cur.key;
    else {
      i -= l + 1;
      cur = cur.right as SortedValues;
    }
  }
}
