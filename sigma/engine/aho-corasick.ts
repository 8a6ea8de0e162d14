// Multi-literal substring search for the candidate index: one automaton per field finds every indexed
// literal occurring in an event value in a single pass, without allocating. Transitions are flat typed
// arrays: the nodes where a scan spends nearly all its time (the root, and prefixes many literals share)
// get a complete dense row over ASCII with failure links already folded in, so one lookup per character;
// the other nodes keep a short edge list scanned linearly and fall back along failure links.
//
// A scan's state is one packed int so the common step is a single load: `x << 2 | sparse << 1 | output`,
// where x is the dense row's offset (sparse = 0) or the node (sparse = 1), and output says the node ends
// a literal.

import { intTables, type FlatTables } from './flat-tables.js';

/** Default cap on dense rows per automaton (128 × 4 bytes each: 2 MB at most). */
export const DENSE_ROWS = 4096;
/** A node without a dense row gets one (while `adaptiveRows` last) once scans have stood on it this often. */
const PROMOTE_AFTER = 32;
const ASCII = 128;
/** ASCII case folding by table: a branch per capital letter mispredicts on mixed-case text. */
const ASCII_LOWER = Uint8Array.from({ length: ASCII }, (_, c) => (c >= 65 && c <= 90 ? c + 32 : c));

/** Whether `String(n)` is just the decimal digits of `n` (a non-negative safe integer). */
export function isDigitsNumber(n: number): boolean {
  return Number.isSafeInteger(n) && n >= 0;
}

/** scanLowered flags: some literal occurred; the text was not all ASCII. */
export const SCAN_HIT = 1;
export const SCAN_NON_ASCII = 2;

export class AhoCorasick {
  /** Per node: its dense row (complete: failure links folded in), or -1. */
  private readonly row: Int32Array;
  /** Dense rows, ASCII columns: the next state (packed). Grows as nodes are promoted. */
  private dense: Int32Array;
  /** Per dense row: its node. */
  private rowNode: Int32Array;
  private rowCount: number;
  private readonly maxRows: number;
  /**
   * Per node: how often a scan stood on it without a dense row (null: no promotion). The rows chosen up
   * front guess where text goes; the text itself shows it (a command-line automaton of 50,000 nodes spent
   * 40 % of its steps on edge lists before this).
   */
  private readonly visits: Int32Array | null;
  /** Per node: its edges are edgeChar/edgeTarget[edgeStart[node], edgeStart[node + 1]). */
  private readonly edgeStart: Int32Array;
  private readonly edgeChar: Uint16Array;
  private readonly edgeTarget: Int32Array;
  private readonly fail: Int32Array;
  private readonly outputs: readonly (Int32Array | null)[];
  /** scanDigits' digits, least significant first (a safe integer has at most 16). */
  private readonly digits = new Uint8Array(16);

  /**
   * `entries`: literal (non-empty, UTF-16 code units) → the bit indices to set when it occurs;
   * `denseRows`: how many nodes get a dense row up front (at least the root); `adaptiveRows`: how many
   * more may be given to the nodes scans stand on most (PROMOTE_AFTER visits each).
   */
  constructor(
    entries: ReadonlyMap<string, readonly number[]> | FlatTables,
    denseRows = DENSE_ROWS,
    adaptiveRows = 0,
    private readonly promoteAfter = PROMOTE_AFTER,
  ) {
    if ('ints' in entries) {
      // The tables of an earlier build (`tables()`): only `row` is written by promotions, so it is copied
      // (the others may be shared); the first promotion grows `dense` into a fresh array.
      const [row, dense, rowNode, edgeStart, edgeTarget, fail] = intTables(entries, 6) as Int32Array[];
      const [rowCount, maxRows, adaptive] = entries.nums as number[];
      this.row = (row as Int32Array).slice();
      this.dense = dense as Int32Array;
      this.rowNode = rowNode as Int32Array;
      this.rowCount = rowCount as number;
      this.maxRows = maxRows as number;
      this.visits = adaptive === 1 ? new Int32Array(this.row.length) : null;
      this.edgeStart = edgeStart as Int32Array;
      this.edgeChar = entries.chars;
      this.edgeTarget = edgeTarget as Int32Array;
      this.fail = fail as Int32Array;
      this.outputs = entries.postings;
      return;
    }
    const trie = buildTrie(entries);
    const n = trie.size;
    const { child, firstChild, sibling, label } = trie;
    // Breadth-first: failure links, and outputs merged along them so a scan never walks the chain (a
    // node shares its failure target's array when it ends no literal itself).
    const fail = new Int32Array(n);
    const outputs = trie.own;
    const queue = new Int32Array(n);
    let tail = 1;
    for (let q = 0; q < tail; q++) {
      const s = queue[q] as number;
      for (let t = firstChild[s] as number; t !== -1; t = sibling[t] as number) {
        const c = label[t] as number;
        let ft: number | undefined;
        if (s !== 0) {
          let f = fail[s] as number;
          while ((ft = child.get(childKey(f, c))) === undefined && f !== 0) f = fail[f] as number;
        }
        const ff = ft ?? 0;
        fail[t] = ff;
        const inherited = outputs[ff] ?? null;
        if (inherited !== null) outputs[t] = union(outputs[t] ?? null, inherited);
        queue[tail++] = t;
      }
    }
    this.fail = fail;
    this.outputs = outputs;
    // Edges grouped per node (CSR), in breadth-first order of their sources.
    this.edgeStart = new Int32Array(n + 1);
    this.edgeChar = new Uint16Array(n - 1);
    this.edgeTarget = new Int32Array(n - 1);
    let e = 0;
    for (let s = 0; s < n; s++) {
      this.edgeStart[s] = e;
      for (let t = firstChild[s] as number; t !== -1; t = sibling[t] as number) {
        this.edgeChar[e] = label[t] as number;
        this.edgeTarget[e] = t;
        e++;
      }
    }
    this.edgeStart[n] = e;
    // Dense rows for the nodes a scan is likeliest to stand on: the root, then the nodes that begin the
    // most literals (a prefix many literals share, like `c:\\windows\\system32\\`, is met by much of
    // the text, while most shallow nodes are rare), filled in breadth-first order so that a failure
    // target's transitions are final before a row copies them.
    const rows = Math.min(n, Math.max(1, denseRows));
    this.rowNode = chooseRows(queue, trie, rows);
    this.rowCount = rows;
    this.maxRows = Math.min(n, rows + Math.max(0, adaptiveRows));
    this.visits = this.maxRows > rows ? new Int32Array(n) : null;
    this.row = new Int32Array(n).fill(-1);
    for (let r = 0; r < rows; r++) this.row[this.rowNode[r] as number] = r;
    const dense = new Int32Array(rows * ASCII);
    this.dense = dense;
    // The root's row: its own edges (its other characters stay on the root, whose packed state is 0).
    const rootEnd = this.edgeStart[1] as number;
    for (let k = 0; k < rootEnd; k++) {
      const c = this.edgeChar[k] as number;
      if (c < ASCII) dense[c] = this.pack(this.edgeTarget[k] as number);
    }
    for (let r = 1; r < rows; r++) {
      const s = this.rowNode[r] as number;
      const f = fail[s] as number;
      const fr = this.row[f] as number;
      if (fr >= 0) dense.copyWithin(r * ASCII, fr * ASCII, (fr + 1) * ASCII);
      else for (let c = 0; c < ASCII; c++) dense[r * ASCII + c] = this.pack(this.next(f, c));
      const end = this.edgeStart[s + 1] as number;
      for (let k = this.edgeStart[s] as number; k < end; k++) {
        const c = this.edgeChar[k] as number;
        if (c < ASCII) dense[r * ASCII + c] = this.pack(this.edgeTarget[k] as number);
      }
    }
  }

  /**
   * What a later build may start from (`new AhoCorasick(tables)`): the arrays as they are now, views not
   * copies, so take them before scanning (promotions change `row`).
   */
  tables(): FlatTables {
    return {
      ints: [this.row, this.dense.subarray(0, this.rowCount * ASCII), this.rowNode.subarray(0, this.rowCount), this.edgeStart, this.edgeTarget, this.fail],
      chars: this.edgeChar,
      postings: this.outputs,
      nums: [this.rowCount, this.maxRows, this.visits !== null ? 1 : 0],
    };
  }

  private pack(node: number): number {
    const r = this.row[node] as number;
    const out = this.outputs[node] !== null ? 1 : 0;
    return r >= 0 ? ((r * ASCII) << 2) | out : (node << 2) | 2 | out;
  }

  private nodeOf(state: number): number {
    return (state & 2) === 0 ? (this.rowNode[state >> 9] as number) : state >> 2;
  }

  /** The state after `state` reads code unit `c`. */
  private step(state: number, c: number): number {
    return (state & 2) === 0 && c < ASCII ? (this.dense[(state >> 2) + c] as number) : this.slowStep(state, c, -1);
  }

  /**
   * A step without a dense row to read (may promote the node: callers reload `dense` after it). `from`:
   * the dense entry `state` was read from, or -1; if the node has been promoted since that entry was
   * filled, the entry is repacked so the next scan passing there stays on dense rows.
   */
  private slowStep(state: number, c: number, from: number): number {
    const node = this.nodeOf(state);
    const r = this.row[node] as number;
    if (r >= 0) {
      if (from >= 0 && (state & 2) !== 0) this.dense[from] = this.pack(node);
      return c < ASCII ? (this.dense[r * ASCII + c] as number) : this.pack(this.next(node, c));
    }
    const visits = this.visits;
    if (visits !== null) {
      const v = (visits[node] as number) + 1;
      visits[node] = v;
      if (v === this.promoteAfter && this.rowCount < this.maxRows) this.promote(node);
    }
    return this.pack(this.next(node, c));
  }

  /**
   * Give node `s` a dense row. Entries already packed as "node s without a row" stay valid: the slow path
   * reads the row and repacks them as it meets them.
   */
  private promote(s: number): void {
    const r = this.rowCount;
    if ((r + 1) * ASCII > this.dense.length) {
      const grown = new Int32Array(Math.min(this.maxRows, Math.max(r + 1, r * 2)) * ASCII);
      grown.set(this.dense);
      this.dense = grown;
      const nodes = new Int32Array(grown.length / ASCII);
      nodes.set(this.rowNode);
      this.rowNode = nodes;
    }
    const base = r * ASCII;
    for (let c = 0; c < ASCII; c++) this.dense[base + c] = this.pack(this.next(s, c));
    this.rowNode[r] = s;
    this.row[s] = r;
    this.rowCount = r + 1;
  }

  /** The automaton's transition from node `s` on code unit `c` (following failure links as needed). */
  private next(s: number, c: number): number {
    for (;;) {
      const r = this.row[s] as number;
      if (r >= 0 && c < ASCII) return this.nodeOf(this.dense[r * ASCII + c] as number);
      const end = this.edgeStart[s + 1] as number;
      for (let e = this.edgeStart[s] as number; e < end; e++) {
        if (this.edgeChar[e] === c) return this.edgeTarget[e] as number;
      }
      if (s === 0) return 0;
      s = this.fail[s] as number;
    }
  }

  /** Whether any literal occurs in `text` (stops at the first). */
  occursIn(text: string): boolean {
    let st = 0;
    for (let i = 0; i < text.length; i++) {
      st = this.step(st, text.charCodeAt(i));
      if ((st & 1) !== 0) return true;
    }
    return false;
  }

  /** Set the bits of every literal that occurs in `text`; returns whether any did. */
  scan(text: string, bits: Uint32Array): boolean {
    let st = 0;
    let hit = false;
    for (let i = 0; i < text.length; i++) {
      st = this.step(st, text.charCodeAt(i));
      if ((st & 1) !== 0) {
        markAll(this.outputs[this.nodeOf(st)] as Int32Array, bits);
        hit = true;
      }
    }
    return hit;
  }

  /** `scan(String(n), bits)` for a number whose text is its decimal digits, without making the text. */
  scanDigits(n: number, bits: Uint32Array): boolean {
    const digits = this.digits;
    let count = 0;
    do {
      digits[count++] = n % 10;
      n = Math.floor(n / 10);
    } while (n > 0);
    let st = 0;
    let hit = false;
    for (let i = count - 1; i >= 0; i--) {
      st = this.step(st, 48 + (digits[i] as number));
      if ((st & 1) !== 0) {
        markAll(this.outputs[this.nodeOf(st)] as Int32Array, bits);
        hit = true;
      }
    }
    return hit;
  }

  /**
   * `scan(text.toLowerCase(), bits)` without the lowercased copy while the text is ASCII (capitals folded
   * as they are read); at the first non-ASCII character it scans the real lowercase form instead, whose
   * ASCII prefix is the same. Returns SCAN_HIT and SCAN_NON_ASCII flags.
   */
  scanLowered(text: string, bits: Uint32Array): number {
    let dense = this.dense;
    let st = 0;
    let hit = 0;
    let from = -1;
    for (let i = 0; i < text.length; i++) {
      let c = text.charCodeAt(i);
      if (c >= ASCII) return SCAN_NON_ASCII | (this.scan(text.toLowerCase(), bits) ? SCAN_HIT : hit);
      c = ASCII_LOWER[c] as number;
      // step(), written out: this loop runs over every keyword leaf of every event.
      if ((st & 2) === 0) {
        from = (st >> 2) + c;
        st = dense[from] as number;
      } else {
        st = this.slowStep(st, c, from);
        from = -1;
        dense = this.dense;
      }
      if ((st & 1) !== 0) {
        markAll(this.outputs[this.nodeOf(st)] as Int32Array, bits);
        hit = SCAN_HIT;
      }
    }
    return hit;
  }
}

/**
 * One Map for the whole trie's edges, not one per node, keyed by node and code unit: `node * 128 + c` for
 * ASCII (a small integer, hashed without allocating), a negative key for the rare other code units.
 */
function childKey(node: number, c: number): number {
  return c < ASCII ? node * ASCII + c : -1 - (node * 0x10000 + c);
}

interface Trie {
  readonly size: number;
  readonly child: Map<number, number>;
  /** Per node: its first child and next sibling (-1: none), and the code unit on its incoming edge. */
  readonly firstChild: Int32Array;
  readonly sibling: Int32Array;
  readonly label: Uint16Array;
  /** Per node: its parent (the root's is 0). */
  readonly parent: Int32Array;
  /** Per node: the postings of the literal it ends, if any. */
  readonly own: (Int32Array | null)[];
}

/**
 * The `rows` nodes that get a dense row, in breadth-first order (`bfs`): the root, then the nodes the most
 * literals start with, shallower first among equals.
 */
function chooseRows(bfs: Int32Array, trie: Trie, rows: number): Int32Array {
  const n = trie.size;
  if (rows >= n) return bfs.slice();
  // Literals per subtree, children before parents (reverse breadth-first order).
  const weight = new Int32Array(n);
  for (let q = n - 1; q > 0; q--) {
    const t = bfs[q] as number;
    const p = trie.parent[t] as number;
    if (trie.own[t] !== null) weight[t] = (weight[t] as number) + 1;
    weight[p] = (weight[p] as number) + (weight[t] as number);
  }
  // The heaviest rows - 1 nodes besides the root, without sorting: the weight where they stop (by a
  // histogram of weights), then every heavier node and the shallowest of those at that weight.
  const histogram = new Int32Array((weight[0] as number) + 2);
  for (let q = 1; q < n; q++) {
    const w = weight[bfs[q] as number] as number;
    histogram[w] = (histogram[w] as number) + 1;
  }
  let cut = histogram.length - 1;
  let heavier = 0;
  while (cut > 0 && heavier + (histogram[cut] as number) < rows - 1) heavier += histogram[cut--] as number;
  let atCut = rows - 1 - heavier;
  const chosen = new Uint8Array(n);
  chosen[0] = 1;
  for (let q = 1; q < n; q++) {
    const w = weight[bfs[q] as number] as number;
    if (w > cut || (w === cut && atCut-- > 0)) chosen[q] = 1;
  }
  const out = new Int32Array(rows);
  let k = 0;
  for (let q = 0; q < n; q++) if (chosen[q] === 1) out[k++] = bfs[q] as number;
  return out;
}

function buildTrie(entries: ReadonlyMap<string, readonly number[]>): Trie {
  let capacity = 1;
  for (const key of entries.keys()) capacity += key.length;
  const child = new Map<number, number>();
  const firstChild = new Int32Array(capacity).fill(-1);
  const sibling = new Int32Array(capacity).fill(-1);
  const label = new Uint16Array(capacity);
  const parent = new Int32Array(capacity);
  const own: (Int32Array | null)[] = new Array<Int32Array | null>(capacity).fill(null);
  let size = 1;
  for (const [key, postings] of entries) {
    let s = 0;
    for (let i = 0; i < key.length; i++) {
      const c = key.charCodeAt(i);
      let t = child.get(childKey(s, c));
      if (t === undefined) {
        t = size++;
        child.set(childKey(s, c), t);
        label[t] = c;
        parent[t] = s;
        sibling[t] = firstChild[s] as number;
        firstChild[s] = t;
      }
      s = t;
    }
    if (postings.length > 0) own[s] = Int32Array.from(new Set(postings));
  }
  return {
    size,
    child,
    firstChild: firstChild.subarray(0, size),
    sibling: sibling.subarray(0, size),
    label: label.subarray(0, size),
    parent: parent.subarray(0, size),
    own: own.slice(0, size),
  };
}

/** Postings of both (each already free of duplicates); `b` itself when `a` is null. */
function union(a: Int32Array | null, b: Int32Array): Int32Array {
  if (a === null) return b;
  const merged = new Set(a);
  for (let i = 0; i < b.length; i++) merged.add(b[i] as number);
  return Int32Array.from(merged);
}

/** Set the bits whose indices are listed in `postings`. */
export function markAll(postings: Int32Array, bits: Uint32Array): void {
  for (let i = 0; i < postings.length; i++) {
    const r = postings[i] as number;
    bits[r >>> 5] = (bits[r >>> 5] as number) | (1 << (r & 31));
  }
}
