// Keyword items made only of plain `contains` literals (the usual keyword lists) need not search the event
// themselves: the candidate index's keyword scan already runs every keyword leaf through an automaton, so
// it also records which of these literals occur, and such an item reads its answer from those bits.

/** The case-insensitive, non-empty keyword literals of a rule set, numbered in order of first use. */
export class KeywordLiterals {
  readonly literals: string[] = [];
  private readonly ids = new Map<string, number>();
  /** How many items asked for ids so far: a rule that raised it uses the scan's literal bits. */
  uses = 0;

  /** The number of `literal` (already lowercased). */
  id(literal: string): number {
    let id = this.ids.get(literal);
    if (id === undefined) {
      id = this.literals.length;
      this.literals.push(literal);
      this.ids.set(literal, id);
    }
    return id;
  }
}
