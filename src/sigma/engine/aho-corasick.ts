// Multi-literal substring search for the candidate index: one automaton per field finds every indexed
// literal occurring in an event value in a single pass, without allocating. Transitions are flat typed
// arrays: nodes with many children (the root and a few hubs) get a dense row over ASCII, the others a
// short edge list that is scanned linearly — both far cheaper per character than a Map lookup.

/** Nodes with more children than this get a dense ASCII row. */
const DENSE_CHILDREN = 6;
const ASCII = 128;

export class AhoCorasick {
  /** Per node: its dense row, or -1. */
  private readonly row: Int32Array;
  /** Dense rows, ASCII columns: target node or -1. */
  private readonly dense: Int32Array;
  /** Per node: its edges are edgeChar/edgeTarget[edgeStart[node], edgeStart[node + 1]). */
  private readonly edgeStart: Int32Array;
  private readonly edgeChar: Uint16Array;
  private readonly edgeTarget: Int32Array;
  private readonly fail: Int32Array;
  private readonly outputs: (Int32Array | null)[];

  /** `entries`: literal (non-empty, UTF-16 code units) → the bit indices to set when it occurs. */
  constructor(entries: ReadonlyMap<string, readonly number[]>) {
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
    this.row = new Int32Array(n).fill(-1);
    let rows = 0;
    for (let s = 0; s < n; s++) if ((next[s] as Map<number, number>).size > DENSE_CHILDREN || s === 0) this.row[s] = rows++;
    this.dense = new Int32Array(rows * ASCII).fill(-1);
    this.edgeStart = new Int32Array(n + 1);
    let edges = 0;
    for (let s = 0; s < n; s++) edges += (next[s] as Map<number, number>).size;
    this.edgeChar = new Uint16Array(edges);
    this.edgeTarget = new Int32Array(edges);
    let e = 0;
    for (let s = 0; s < n; s++) {
      this.edgeStart[s] = e;
      const r = this.row[s] as number;
      for (const [c, t] of next[s] as Map<number, number>) {
        if (r >= 0 && c < ASCII) this.dense[r * ASCII + c] = t;
        this.edgeChar[e] = c;
        this.edgeTarget[e] = t;
        e++;
      }
    }
    this.edgeStart[n] = e;
  }

  /** The child of `s` on code unit `c`, or -1. */
  private step(s: number, c: number): number {
    const r = this.row[s] as number;
    if (r >= 0 && c < ASCII) return this.dense[r * ASCII + c] as number;
    const end = this.edgeStart[s + 1] as number;
    for (let e = this.edgeStart[s] as number; e < end; e++) {
      if (this.edgeChar[e] === c) return this.edgeTarget[e] as number;
    }
    return -1;
  }

  /** Whether any literal occurs in `text` (stops at the first). */
  occursIn(text: string): boolean {
    const fail = this.fail;
    const outputs = this.outputs;
    let s = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      let t = this.step(s, c);
      while (t < 0 && s !== 0) {
        s = fail[s] as number;
        t = this.step(s, c);
      }
      s = t < 0 ? 0 : t;
      if (outputs[s] !== null) return true;
    }
    return false;
  }

  /** Set the bits of every literal that occurs in `text`. */
  scan(text: string, bits: Uint32Array): void {
    const fail = this.fail;
    const outputs = this.outputs;
    let s = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      let t = this.step(s, c);
      while (t < 0 && s !== 0) {
        s = fail[s] as number;
        t = this.step(s, c);
      }
      s = t < 0 ? 0 : t;
      const out = outputs[s];
      if (out) markAll(out, bits);
    }
  }
}

/** Set the bits whose indices are listed in `postings`. */
export function markAll(postings: Int32Array, bits: Uint32Array): void {
  for (let i = 0; i < postings.length; i++) {
    const r = postings[i] as number;
    bits[r >>> 5] = (bits[r >>> 5] as number) | (1 << (r & 31));
  }
}
