// Multi-literal substring search for the candidate index: one automaton per field finds every indexed
// literal occurring in an event value in a single pass, without allocating.

export class AhoCorasick {
  private readonly next: Map<number, number>[] = [new Map()];
  private readonly fail: number[] = [0];
  private readonly outputs: (Int32Array | null)[] = [null];

  /** `entries`: literal (non-empty, UTF-16 code units) → the bit indices to set when it occurs. */
  constructor(entries: ReadonlyMap<string, readonly number[]>) {
    const own: Set<number>[] = [new Set()];
    for (const [key, rules] of entries) {
      let s = 0;
      for (let i = 0; i < key.length; i++) {
        const c = key.charCodeAt(i);
        const edges = this.next[s] as Map<number, number>;
        let t = edges.get(c);
        if (t === undefined) {
          t = this.next.length;
          edges.set(c, t);
          this.next.push(new Map());
          this.fail.push(0);
          this.outputs.push(null);
          own.push(new Set());
        }
        s = t;
      }
      for (const r of rules) (own[s] as Set<number>).add(r);
    }
    // Breadth-first: failure links, and outputs merged along them so a scan never walks the chain.
    const queue: number[] = [];
    for (const t of (this.next[0] as Map<number, number>).values()) queue.push(t);
    for (let q = 0; q < queue.length; q++) {
      const s = queue[q] as number;
      for (const [c, t] of this.next[s] as Map<number, number>) {
        let f = this.fail[s] as number;
        while (f !== 0 && !(this.next[f] as Map<number, number>).has(c)) f = this.fail[f] as number;
        const ft = (this.next[f] as Map<number, number>).get(c);
        this.fail[t] = ft !== undefined && ft !== t ? ft : 0;
        for (const r of own[this.fail[t] as number] as Set<number>) (own[t] as Set<number>).add(r);
        queue.push(t);
      }
    }
    for (let s = 0; s < own.length; s++) {
      const set = own[s] as Set<number>;
      this.outputs[s] = set.size === 0 ? null : Int32Array.from(set);
    }
  }

  /** Set the bits of every literal that occurs in `text`. */
  scan(text: string, bits: Uint32Array): void {
    const next = this.next;
    const fail = this.fail;
    const outputs = this.outputs;
    let s = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      let t = (next[s] as Map<number, number>).get(c);
      while (t === undefined && s !== 0) {
        s = fail[s] as number;
        t = (next[s] as Map<number, number>).get(c);
      }
      s = t ?? 0;
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
