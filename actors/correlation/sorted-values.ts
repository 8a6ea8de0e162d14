// A sorted multiset of numbers kept in blocks of at most BLOCK values, each block a sorted typed array:
// an insert or removal moves at most one block's values and rarely splits or merges blocks, and a
// rank lookup walks from the block of the previous lookup. A window's percentile asks for nearly the
// same rank after each hit, so that walk is a step or none, whatever the window's size; a persistent
// tree before this allocated O(log n) nodes per hit and chased as many pointers per lookup.
import { lowerBound } from './search.js';

/** Values per block at most (2 KB): a change moves part of one block, and 100k values make ≈ 600 blocks. */
const BLOCK = 256;

export class SortedValues {
  /** A block below an eighth full merges into a neighbour when the two fill at most half a block. */
  private readonly sparse: number;
  private readonly blocks: Float64Array[] = [new Float64Array(4)];
  private readonly lens: number[] = [0];
  /** Each block's largest value, in one array of doubles: finding a block reads no block. */
  private readonly lasts: number[] = [-Infinity];
  private count = 0;
  /** The block of the last rank lookup and how many values lie in the blocks before it. */
  private cursor = 0;
  private before = 0;

  /** `block` (a power of two, at least 8) is the most values a block holds; tests make it small. */
  constructor(private readonly block = BLOCK) {
    this.sparse = block / 8;
  }

  get size(): number {
    return this.count;
  }

  /** Builds from ascending values. */
  static of(ascending: readonly number[], block = BLOCK): SortedValues {
    const s = new SortedValues(block);
    s.blocks.length = 0;
    s.lens.length = 0;
    s.lasts.length = 0;
    for (let i = 0; i < ascending.length || s.blocks.length === 0; i += block / 2) {
      const part = ascending.slice(i, i + block / 2);
      const values = new Float64Array(Math.max(4, part.length * 2));
      values.set(part);
      s.blocks.push(values);
      s.lens.push(part.length);
      s.lasts.push(part[part.length - 1] ?? -Infinity);
    }
    s.count = ascending.length;
    return s;
  }

  /** The first block whose largest value is >= v (the last block when none is). */
  private blockFor(v: number): number {
    return lowerBound(this.lasts, 0, this.blocks.length - 1, v);
  }

  insert(v: number): void {
    const b = this.blockFor(v);
    let block = this.blocks[b] as Float64Array;
    const len = this.lens[b] as number;
    if (len === block.length) {
      block = grown(block, Math.min(this.block, len * 2));
      this.blocks[b] = block;
    }
    const at = bound(block, len, v, true);
    block.copyWithin(at + 1, at, len);
    block[at] = v;
    this.lens[b] = len + 1;
    if (at === len) this.lasts[b] = v;
    this.count++;
    if (b < this.cursor) this.before++;
    if (len + 1 === this.block) this.split(b);
  }

  /** Removes one occurrence of v; nothing when v is absent. */
  remove(v: number): void {
    const b = this.blockFor(v);
    const block = this.blocks[b] as Float64Array;
    const len = this.lens[b] as number;
    const at = bound(block, len, v, false);
    if (at === len || block[at] !== v) return;
    block.copyWithin(at, at + 1, len);
    this.lens[b] = len - 1;
    if (at === len - 1) this.lasts[b] = len > 1 ? (block[len - 2] as number) : -Infinity;
    this.count--;
    if (b < this.cursor) this.before--;
    if (len - 1 < this.sparse) this.mergeAround(b);
  }

  /** The `rank`-th smallest value (0-based); `rank` must be below the size. */
  select(rank: number): number {
    let b = this.cursor;
    let before = this.before;
    while (rank < before) {
      b--;
      before -= this.lens[b] as number;
    }
    while (rank >= before + (this.lens[b] as number)) {
      before += this.lens[b] as number;
      b++;
    }
    this.cursor = b;
    this.before = before;
    return (this.blocks[b] as Float64Array)[rank - before] as number;
  }

  private split(b: number): void {
    const block = this.blocks[b] as Float64Array;
    const half = this.block / 2;
    const upper = new Float64Array(this.block);
    upper.set(block.subarray(half, this.block));
    this.blocks.splice(b + 1, 0, upper);
    this.lens.splice(b + 1, 0, this.block - half);
    this.lasts.splice(b + 1, 0, this.lasts[b] as number);
    this.lens[b] = half;
    this.lasts[b] = block[half - 1] as number;
    this.resetCursor();
  }

  /** Drops block b when empty, else merges it with a neighbour when both fit in half a block together. */
  private mergeAround(b: number): void {
    const n = this.blocks.length;
    if (n === 1) return;
    if (this.lens[b] === 0) {
      this.blocks.splice(b, 1);
      this.lens.splice(b, 1);
      this.lasts.splice(b, 1);
      this.resetCursor();
      return;
    }
    const left = b > 0 && (this.lens[b - 1] as number) <= (this.lens[b + 1] ?? Infinity) ? b - 1 : b;
    const right = left + 1;
    if (right >= n) return;
    const total = (this.lens[left] as number) + (this.lens[right] as number);
    if (total > this.block / 2) return;
    let block = this.blocks[left] as Float64Array;
    if (block.length < total) block = grown(block, Math.max(total, 4));
    block.set((this.blocks[right] as Float64Array).subarray(0, this.lens[right] as number), this.lens[left] as number);
    this.blocks[left] = block;
    this.lens[left] = total;
    this.lasts[left] = this.lasts[right] as number;
    this.blocks.splice(right, 1);
    this.lens.splice(right, 1);
    this.lasts.splice(right, 1);
    this.resetCursor();
  }

  private resetCursor(): void {
    this.cursor = 0;
    this.before = 0;
  }
}

function grown(block: Float64Array, capacity: number): Float64Array {
  const next = new Float64Array(capacity);
  next.set(block);
  return next;
}

/**
 * First position below `len` whose value is > v (`after`) or >= v (otherwise). Not `search.ts`'s: a
 * typed array passed where plain arrays go would make those searches' reads polymorphic.
 */
function bound(block: Float64Array, len: number, v: number, after: boolean): number {
  let lo = 0;
  let hi = len;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const x = block[mid] as number;
    if (x < v || (after && x === v)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
