// The compiled automata of a rule set (index automata, `contains`/`startswith`/`endswith` item automata)
// as plain tables, so the compiled-rule cache can store them and a warm build only wraps them again
// instead of building tries, failure links and dense rows (issue 19 §2). One compile asks for its
// automata in a fixed order; `AutomatonSupply` answers the n-th request with the n-th stored table set
// and records what it hands out, for the next entry. All tables of one rule set pack into one Int32Array
// and one Uint16Array (`PackedAutomata`): a few large buffers instead of thousands of small ones, which
// deserialise (or sit in a SharedArrayBuffer) as a whole.
import { AffixTrie } from './affix-trie.js';
import { AhoCorasick } from './aho-corasick.js';
import type { FlatTables } from './flat-tables.js';

const AHO_CORASICK = 0;
const AFFIX_TRIE = 1;

/** A recorded automaton: what was asked for (kind and a fingerprint of its literals) and its tables. */
export interface AutomatonRecord {
  readonly kind: number;
  /** Literals and their total length: a stored table set is used only for the same request. */
  readonly literals: number;
  readonly literalChars: number;
  readonly tables: FlatTables;
}

/** Every automaton of a rule set, packed (see the note at the top). */
export interface PackedAutomata {
  /** Per automaton: kind, literals, literalChars, then the lengths of its int tables, chars and nums. */
  readonly header: Int32Array;
  readonly ints: Int32Array;
  readonly chars: Uint16Array;
}

function fingerprint(entries: ReadonlyMap<string, readonly number[]>): number {
  let chars = 0;
  for (const key of entries.keys()) chars += key.length;
  return chars;
}

/**
 * Hands out the automata of one compile: the stored ones in request order while each matches its request
 * (kind and literal fingerprint; the cache key already pins rules, pipelines and engine code, so a
 * mismatch only means the entry is not this compile's: the rest is then built), built ones otherwise.
 */
export class AutomatonSupply {
  private taken = 0;
  private stored: readonly AutomatonRecord[];
  readonly made: AutomatonRecord[] = [];
  /** How many were built rather than taken from the stored tables. */
  built = 0;
  /** How many were asked for: where the next request's record goes (CompileLayout.automataAt). */
  requests = 0;

  constructor(
    stored: readonly AutomatonRecord[] = [],
    /** Whether to record what is handed out (off for matchers built outside a compile). */
    private readonly record = true,
  ) {
    this.stored = stored;
  }

  private take(kind: number, entries: ReadonlyMap<string, readonly number[]>): FlatTables | undefined {
    if (this.stored.length === 0) return undefined;
    const next = this.stored[this.taken++];
    if (next === undefined) return undefined;
    if (next.kind === kind && next.literals === entries.size && next.literalChars === fingerprint(entries)) return next.tables;
    this.stored = [];
    return undefined;
  }

  private keep<T extends AhoCorasick | AffixTrie>(kind: number, entries: ReadonlyMap<string, readonly number[]>, made: T, fresh: boolean): T {
    this.requests++;
    if (fresh) this.built++;
    if (this.record) this.made.push({ kind, literals: entries.size, literalChars: fingerprint(entries), tables: made.tables() });
    return made;
  }

  ahoCorasick(entries: ReadonlyMap<string, readonly number[]>, denseRows: number, adaptiveRows = 0): AhoCorasick {
    const t = this.take(AHO_CORASICK, entries);
    return this.keep(AHO_CORASICK, entries, new AhoCorasick(t ?? entries, denseRows, adaptiveRows), t === undefined);
  }

  affixTrie(entries: ReadonlyMap<string, readonly number[]>, fromEnd: boolean): AffixTrie {
    const t = this.take(AFFIX_TRIE, entries);
    return this.keep(AFFIX_TRIE, entries, new AffixTrie(t ?? entries, fromEnd), t === undefined);
  }

  /**
   * The next stored tables, which must be of `kind`: a request without its literals (a candidate index
   * unpacked from the compiled-rule cache) has nothing to build from, so a missing or other kind throws.
   */
  private takeStored(kind: number): FlatTables {
    const next = this.stored[this.taken++];
    if (next?.kind !== kind) throw new Error(`automaton tables: request ${this.requests} finds no stored ${kind === AHO_CORASICK ? 'Aho-Corasick automaton' : 'affix trie'}`);
    this.requests++;
    if (this.record) this.made.push(next);
    return next.tables;
  }

  storedAhoCorasick(denseRows: number, adaptiveRows = 0): AhoCorasick {
    return new AhoCorasick(this.takeStored(AHO_CORASICK), denseRows, adaptiveRows);
  }

  storedAffixTrie(fromEnd: boolean): AffixTrie {
    return new AffixTrie(this.takeStored(AFFIX_TRIE), fromEnd);
  }
}

/** Automata of matchers made outside a compile (tests, one-off matchers): built, not recorded. */
export const BUILD_AUTOMATA = new AutomatonSupply([], false);

/** Postings as three int tables: per node the index of its (distinct) list or -1, list starts, list data. */
function packPostings(postings: readonly (Int32Array | null)[]): Int32Array[] {
  const index = new Map<Int32Array, number>();
  const of = new Int32Array(postings.length);
  const lists: Int32Array[] = [];
  postings.forEach((p, node) => {
    if (p === null) return void (of[node] = -1);
    let i = index.get(p);
    if (i === undefined) {
      i = lists.length;
      index.set(p, i);
      lists.push(p);
    }
    of[node] = i;
  });
  const starts = new Int32Array(lists.length + 1);
  let size = 0;
  lists.forEach((l, i) => {
    starts[i] = size;
    size += l.length;
  });
  starts[lists.length] = size;
  const data = new Int32Array(size);
  lists.forEach((l, i) => data.set(l, starts[i]));
  return [of, starts, data];
}

function unpackPostings(of: Int32Array, starts: Int32Array, data: Int32Array): (Int32Array | null)[] {
  const lists: Int32Array[] = [];
  for (let i = 0; i + 1 < starts.length; i++) lists.push(data.subarray(starts[i], starts[i + 1]));
  const out = new Array<Int32Array | null>(of.length);
  for (let node = 0; node < of.length; node++) out[node] = of[node] === -1 ? null : (lists[of[node] as number] ?? null);
  return out;
}

/** All records in one header, one Int32Array and one Uint16Array. */
export function packAutomata(records: readonly AutomatonRecord[]): PackedAutomata {
  const header: number[] = [records.length];
  const ints: Int32Array[] = [];
  const chars: Uint16Array[] = [];
  for (const r of records) {
    const tables = [...r.tables.ints, ...packPostings(r.tables.postings)];
    header.push(r.kind, r.literals, r.literalChars, tables.length, ...tables.map((t) => t.length), r.tables.chars.length, r.tables.nums.length, ...r.tables.nums);
    ints.push(...tables);
    chars.push(r.tables.chars);
  }
  const concat = <T extends Int32Array | Uint16Array>(parts: readonly T[], make: (n: number) => T): T => {
    const out = make(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  };
  return { header: Int32Array.from(header), ints: concat(ints, (n) => new Int32Array(n)), chars: concat(chars, (n) => new Uint16Array(n)) };
}

/** A record whose tables are made from the packed arrays when first asked for: most automata of a corpus (its rules' items) never are. */
class PackedRecord implements AutomatonRecord {
  private made: FlatTables | undefined;

  constructor(
    readonly kind: number,
    readonly literals: number,
    readonly literalChars: number,
    private readonly ints: readonly Int32Array[],
    private readonly chars: Uint16Array,
    private readonly nums: readonly number[],
  ) {}

  get tables(): FlatTables {
    if (this.made === undefined) {
      const tables = this.ints.slice(0, -3);
      const [of, starts, data] = this.ints.slice(-3) as [Int32Array, Int32Array, Int32Array];
      this.made = { ints: tables, chars: this.chars, postings: unpackPostings(of, starts, data), nums: this.nums };
    }
    return this.made;
  }
}

/**
 * The records of `packed`, their tables views into its arrays (no copy). Throws on a header that does not
 * describe the arrays (a caller treats that as a damaged entry).
 */
export function unpackAutomata(packed: PackedAutomata): AutomatonRecord[] {
  const { header, ints, chars } = packed;
  let h = 0;
  const read = (): number => {
    if (h >= header.length) throw new Error('automaton tables: header ends early');
    return header[h++] as number;
  };
  let intAt = 0;
  let charAt = 0;
  const slice = <T extends Int32Array | Uint16Array>(from: T, at: number, n: number): T => {
    if (n < 0 || at + n > from.length) throw new Error('automaton tables: a table runs past its pool');
    return from.subarray(at, at + n) as T;
  };
  const count = read();
  const out: AutomatonRecord[] = [];
  for (let a = 0; a < count; a++) {
    const kind = read();
    const literals = read();
    const literalChars = read();
    const tableCount = read();
    if (tableCount < 3) throw new Error('automaton tables: too few tables');
    const tables: Int32Array[] = [];
    for (let t = 0; t < tableCount; t++) {
      const n = read();
      tables.push(slice(ints, intAt, n));
      intAt += n;
    }
    const charCount = read();
    const edgeChars = slice(chars, charAt, charCount);
    charAt += charCount;
    const numCount = read();
    const nums: number[] = [];
    for (let i = 0; i < numCount; i++) nums.push(read());
    out.push(new PackedRecord(kind, literals, literalChars, tables, edgeChars, nums));
  }
  if (h !== header.length || intAt !== ints.length || charAt !== chars.length) throw new Error('automaton tables: pools and header disagree');
  return out;
}
