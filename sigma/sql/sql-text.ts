// SQL spelling shared by both targets: string literals, identifiers (the contract's pattern) and the
// error a rule gets when some part of it has no SQL form.

/** The contract's identifier pattern (interface.md, error table): anything else is `InvalidIdentifier`. */
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_$]*$/;

/** A rule part that has no SQL form on the target: the rule is skipped with this reason. */
export class Unconvertible extends Error {
  override readonly name = 'Unconvertible';
}

/** A name that fails the identifier pattern; `what` says which name (field, table, option). */
export class InvalidIdentifier extends Error {
  override readonly name = 'InvalidIdentifier';
  constructor(
    readonly what: string,
    readonly identifier: string,
  ) {
    super(`InvalidIdentifier: ${what} '${identifier}' does not match ${IDENTIFIER.source}`);
  }
}

export function sqlString(s: string): string {
  return `'${s.replaceAll("'", "''")}'`;
}

/** A checked identifier, double-quoted so case is kept on PostgreSQL. */
export function identifier(name: string, what: string): string {
  if (!IDENTIFIER.test(name)) throw new InvalidIdentifier(what, name);
  return `"${name}"`;
}

/** A number as a SQL literal (never exponent-free garbage like `Infinity`). */
export function sqlNumber(n: number): string {
  if (!Number.isFinite(n)) throw new Unconvertible(`the number ${n} has no SQL literal`);
  return String(n);
}

/** Above this many operands a junction nests in halves: SQLite parses a flat chain 1,000 deep at most. */
const MAX_FLAT_JUNCTION = 100;

/** `a AND b`, `a OR b` with parentheses; one operand stays as it is. */
export function junction(op: 'AND' | 'OR', parts: readonly string[]): string {
  if (parts.length === 0) return op === 'AND' ? 'TRUE' : 'FALSE';
  if (parts.length === 1) return parts[0] as string;
  if (parts.length > MAX_FLAT_JUNCTION) {
    const half = Math.ceil(parts.length / 2);
    return junction(op, [junction(op, parts.slice(0, half)), junction(op, parts.slice(half))]);
  }
  return `(${parts.join(` ${op} `)})`;
}

/**
 * SQL NOT over a predicate whose unknown (NULL: absent field) must read as false first, as the engine's
 * boolean tests do: `NOT NULL` would drop the event the negation should keep.
 */
export function negate(predicate: string): string {
  return `NOT COALESCE(${predicate}, FALSE)`;
}
