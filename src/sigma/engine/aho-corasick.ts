// Multi-literal substring search for the candidate index: one automaton per field finds every indexed
// literal occurring in an event value in a single pass, without allocating. Transitions are flat typed
// arrays: the shallowest nodes (where a scan spends nearly all its time) get a complete dense row over
// ASCII with failure links already folded in, so one lookup per character; deeper nodes keep a short edge
// list scanned linearly and fall back along failure links.
//
// A scan's state is one packed int so the common step is a single load: `x << 2 | sparse << 1 | output`,
// where x is the dense row's offset (sparse = 0) or the node (sparse = 1), and output says the node ends
// a literal.

/** Default cap on dense rows per automaton (128 × 4 bytes each: 2 MB at most). */
export const DENSE_ROWS = 4096;
const ASCII = 128;
/** ASCII case folding by table: a branch per capital letter mispredicts on mixed-case text. */
const ASCII_LOWER = Uint8Array.from({ length: ASCII }, (_, c) => (c >= 65 && c <= 90 ? c + 32 : c));

export class AhoCorasick {
  /** Per node: its dense row (complete: failure links folded in), or -1. */
  private readonly row: Int32Array;
  /** Dense rows, ASCII columns: the next state (packed). */
  private readonly dense: Int32Array;
  /** Per dense row: its node. */
  private readonly rowNode: Int32Array;
  /** Per node: its edges are edgeChar/edgeTarget[edgeStart[node], edgeStart[node + 1]). */
  private readonly edgeStart: Int32Array;
  private readonly edgeChar: Uint16Array;
  private readonly edgeTarget: Int32Array;
  private readonly fail: Int32Array;
  private readonly outputs: (Int32Array | null)[];

  /**
   * `entries`: literal (non-empty, UTF-16 code units) → the bit indices to set when it occurs;
   * `denseRows`: how many of the shallowest nodes get a dense row (at least the root).
   */
  constructor(entries: ReadonlyMap<string, readonly number[]>, denseRows = DENSE_ROWS) {
    const next: Map<number, number>[] = [new Map()];
    const own: Set<number>[] = [new Set()];
    for (const [key, postings] of entries) {
      let s = 0;
      for (let i = 0; i < key.length; i++) {
        const c = key.charCodeAt(i);
        const edges = next[s] as Map<number, number>;
        let t = edges.get(c);
        if (t === undefined) {
          t = next.length;
          edges.set(c, t);
          next.push(new Map());
          own.push(new Set());
        }
        s = t;
      }
      for (const p of postings) (own[s] as Set<number>).add(p);
    }
    const n = next.length;
    // Breadth-first: failure links, and outputs merged along them so a scan never walks the chain.
    const fail = new Int32Array(n);
    const queue: number[] = [...(next[0] as Map<number, number>).values()];
    for (let q = 0; q < queue.length; q++) {
      const s = queue[q] as number;
      for (const [c, t] of next[s] as Map<number, number>) {
        let f = fail[s] as number;
        while (f !== 0 && !(next[f] as Map<number, number>).has(c)) f = fail[f] as number;
        const ft = (next[f] as Map<number, number>).get(c);
        fail[t] = ft !== undefined && ft !== t ? ft : 0;
        for (const p of own[fail[t] as number] as Set<number>) (own[t] as Set<number>).add(p);
        queue.push(t);
      }
    }
    this.fail = fail;
    this.outputs = own.map((set) => (set.size === 0 ? null : Int32Array.from(set)));
    this.edgeStart = new Int32Array(n + 1);
    let edges = 0;
    for (let s = 0; s < n; s++) edges += (next[s] as Map<number, number>).size;
    this.edgeChar = new Uint16Array(edges);
    this.edgeTarget = new Int32Array(edges);
    let e = 0;
    for (let s = 0; s < n; s++) {
      this.edgeStart[s] = e;
      for (const [c, t] of next[s] as Map<number, number>) {
        this.edgeChar[e] = c;
        this.edgeTarget[e] = t;
        e++;
      }
    }
    this.edgeStart[n] = e;
    // Dense rows in breadth-first order: a node's failure target is shallower, so its row is complete
    // before the node's own row copies the characters it has no edge for.
    const order = [0, ...queue].slice(0, Math.max(1, denseRows));
    this.row = new Int32Array(n).fill(-1);
    this.rowNode = Int32Array.from(order);
    order.forEach((s, r) => (this.row[s] = r));
    // Node-valued first (the root's row all zeros; any other a copy of its failure target's, then its own
    // edges), packed once all rows exist.
    const dense = new Int32Array(order.length * ASCII);
    order.forEach((s, r) => {
      if (s !== 0) {
        const f = this.row[fail[s] as number] as number;
        dense.copyWithin(r * ASCII, f * ASCII, (f + 1) * ASCII);
      }
      for (const [c, t] of next[s] as Map<number, number>) if (c < ASCII) dense[r * ASCII + c] = t;
    });
    this.dense = dense.map((t) => this.pack(t));
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
    return (state & 2) === 0 && c < ASCII ? (this.dense[(state >> 2) + c] as number) : this.pack(this.next(this.nodeOf(state), c));
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

  /** Set the bits of every literal that occurs in `text`. */
  scan(text: string, bits: Uint32Array): void {
    let st = 0;
    for (let i = 0; i < text.length; i++) {
      st = this.step(st, text.charCodeAt(i));
      if ((st & 1) !== 0) markAll(this.outputs[this.nodeOf(st)] as Int32Array, bits);
    }
  }

  /**
   * `scan(text.toLowerCase(), bits)` without the lowercased copy while the text is ASCII (capitals folded
   * as they are read); at the first non-ASCII character it scans the real lowercase form instead, whose
   * ASCII prefix is the same. Returns whether the text was all ASCII.
   */
  scanLowered(text: string, bits: Uint32Array): boolean {
    const dense = this.dense;
    let st = 0;
    for (let i = 0; i < text.length; i++) {
      let c = text.charCodeAt(i);
      if (c >= ASCII) {
        this.scan(text.toLowerCase(), bits);
        return false;
      }
      c = ASCII_LOWER[c] as number;
      // step(), written out: this loop runs over every keyword leaf of every event.
      st = (st & 2) === 0 ? (dense[(st >> 2) + c] as number) : this.pack(this.next(this.nodeOf(st), c));
      if ((st & 1) !== 0) markAll(this.outputs[this.nodeOf(st)] as Int32Array, bits);
    }
    return true;
  }
}

/** Set the bits whose indices are listed in `postings`. */
export function markAll(postings: Int32Array, bits: Uint32Array): void {
  for (let i = 0; i < postings.length; i++) {
    const r = postings[i] as number;
    bits[r >>> 5] = (bits[r >>> 5] as number) | (1 << (r & 31));
  }
}
