// Anchored literals for the candidate index: the keys a text starts with (or ends with) are found by one
// walk from that end of the text down a trie, which stops at the first character no key continues with:
// a handful of steps where a substring automaton would read the whole text. `startswith`/`endswith`
// values (the commonest Sigma shape, `Image|endswith: '\x.exe'`) are filed here.
import { markAll } from './aho-corasick.js';
import { intTables, type FlatTables } from './flat-tables.js';

const ASCII = 128;
/** From this many edges a node gets a direct row over ASCII (`.exe` ends thousands of suffixes). */
const DENSE_FANOUT = 6;

export class AffixTrie {
  /** Per node: its edges are edgeChar/edgeTarget[edgeStart[node], edgeStart[node + 1]). */
  private readonly edgeStart: Int32Array;
  private readonly edgeChar: Uint16Array;
  private readonly edgeTarget: Int32Array;
  /** Per node: the postings of the key it ends, if any. */
  private readonly postings: readonly (Int32Array | null)[];
  /** Per node: its row in `dense` when it has many edges, else -1. */
  private readonly denseRow: Int32Array;
  /** Rows of ASCII code units → child (-1: none), for the nodes with many edges. */
  private readonly dense: Int32Array;

  /**
   * `entries`: key (lowercase, non-empty) → the bit indices to set when a text starts (`fromEnd`: ends)
   * with it.
   */
  constructor(
    entries: ReadonlyMap<string, readonly number[]> | FlatTables,
    readonly fromEnd: boolean,
  ) {
    if ('ints' in entries) {
      // The tables of an earlier build (`tables()`); a trie never changes them.
      const [edgeStart, edgeTarget, denseRow, dense] = intTables(entries, 4) as Int32Array[];
      this.edgeStart = edgeStart as Int32Array;
      this.edgeChar = entries.chars;
      this.edgeTarget = edgeTarget as Int32Array;
      this.postings = entries.postings;
      this.denseRow = denseRow as Int32Array;
      this.dense = dense as Int32Array;
      return;
    }
    const children: Map<number, number>[] = [new Map()];
    const own: number[][] = [[]];
    for (const [key, ps] of entries) {
      let s = 0;
      for (let i = 0; i < key.length; i++) {
        const c = key.charCodeAt(fromEnd ? key.length - 1 - i : i);
        let t = (children[s] as Map<number, number>).get(c);
        if (t === undefined) {
          t = children.length;
          children.push(new Map());
          own.push([]);
          (children[s] as Map<number, number>).set(c, t);
        }
        s = t;
      }
      (own[s] as number[]).push(...ps);
    }
    const n = children.length;
    this.edgeStart = new Int32Array(n + 1);
    this.edgeChar = new Uint16Array(n - 1);
    this.edgeTarget = new Int32Array(n - 1);
    let e = 0;
    for (let s = 0; s < n; s++) {
      this.edgeStart[s] = e;
      for (const [c, t] of children[s] as Map<number, number>) {
        this.edgeChar[e] = c;
        this.edgeTarget[e] = t;
        e++;
      }
    }
    this.edgeStart[n] = e;
    this.denseRow = new Int32Array(n).fill(-1);
    let rows = 0;
    for (let s = 0; s < n; s++) if ((children[s] as Map<number, number>).size >= DENSE_FANOUT) this.denseRow[s] = rows++;
    this.dense = new Int32Array(rows * ASCII).fill(-1);
    for (let s = 0; s < n; s++) {
      const r = this.denseRow[s] as number;
      if (r < 0) continue;
      for (const [c, t] of children[s] as Map<number, number>) if (c < ASCII) this.dense[r * ASCII + c] = t;
    }
    this.postings = own.map((ps) => (ps.length > 0 ? Int32Array.from(new Set(ps)) : null));
  }

  /** What a later build may start from (`new AffixTrie(tables, fromEnd)`). */
  tables(): FlatTables {
    return { ints: [this.edgeStart, this.edgeTarget, this.denseRow, this.dense], chars: this.edgeChar, postings: this.postings, nums: [] };
  }

  /**
   * Set the bits of every key `text` starts (ends) with. With `fold`, ASCII capitals are read as lowercase
   * and the walk gives up at a non-ASCII character, returning false: the caller walks the real lowercase
   * text then (lowercasing ASCII characters does not depend on their neighbours, so what was marked up to
   * there holds).
   */
  walk(text: string, fold: boolean, bits: Uint32Array): boolean {
    const n = text.length;
    let s = 0;
    for (let i = 0; i < n; i++) {
      let c = text.charCodeAt(this.fromEnd ? n - 1 - i : i);
      if (fold) {
        if (c >= ASCII) return false;
        if (c >= 65 && c <= 90) c += 32;
      }
      const r = this.denseRow[s] as number;
      const next = r >= 0 && c < ASCII ? (this.dense[r * ASCII + c] as number) : this.child(s, c);
      if (next < 0) return true;
      s = next;
      const ps = this.postings[s];
      if (ps !== null && ps !== undefined) markAll(ps, bits);
    }
    return true;
  }

  /** Whether `text` starts (ends) with some key, code units compared as they are. */
  hasKeyOf(text: string): boolean {
    const n = text.length;
    let s = 0;
    for (let i = 0; i < n; i++) {
      const c = text.charCodeAt(this.fromEnd ? n - 1 - i : i);
      const r = this.denseRow[s] as number;
      const next = r >= 0 && c < ASCII ? (this.dense[r * ASCII + c] as number) : this.child(s, c);
      if (next < 0) return false;
      s = next;
      if (this.postings[s] !== null) return true;
    }
    return false;
  }

  private child(s: number, c: number): number {
    const end = this.edgeStart[s + 1] as number;
    for (let k = this.edgeStart[s] as number; k < end; k++) if (this.edgeChar[k] === c) return this.edgeTarget[k] as number;
    return -1;
  }
}
