// One automaton's state as plain tables (automaton-tables.ts stores and packs them; the automata take
// them back in their constructors).

/** Typed arrays in a fixed order per kind, edge labels, postings per node, and counters. */
export interface FlatTables {
  readonly ints: readonly Int32Array[];
  readonly chars: Uint16Array;
  readonly postings: readonly (Int32Array | null)[];
  readonly nums: readonly number[];
}

/** The int tables of `t`, which must be `count` (a clear error on a malformed set). */
export function intTables(t: FlatTables, count: number): readonly Int32Array[] {
  if (t.ints.length !== count) throw new Error(`automaton tables: ${t.ints.length} int tables, expected ${count}`);
  return t.ints;
}
