// How event scalars are read as text, numbers and booleans (§5.4). Pure helpers shared by matchers, the
// candidate index and the keyword search, so every consumer coerces the same way.

// Strict decimal grammar: optional sign, digits with optional fraction or a leading-dot fraction, optional
// exponent; no whitespace, hex, `Infinity` or empty string (all of which `Number()` would accept).
const DECIMAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/** The number a JSON number or strict decimal string denotes, else NaN. */
export function numericValue(leaf: unknown): number {
  if (typeof leaf === 'number') return leaf;
  if (typeof leaf === 'string' && DECIMAL.test(leaf)) return Number(leaf);
  return Number.NaN;
}

/** Strings as they are, numbers as `String(n)`, booleans as `true`/`false`; nothing for null and objects. */
export function textOf(leaf: unknown): string | undefined {
  switch (typeof leaf) {
    case 'string':
      return leaf;
    case 'number':
      return String(leaf);
    case 'boolean':
      return leaf ? 'true' : 'false';
    default:
      return undefined;
  }
}

/** Lenient event booleans: JSON booleans and `true/1/yes`, `false/0/no` strings in any case. */
export function booleanValue(leaf: unknown): boolean | undefined {
  if (typeof leaf === 'boolean') return leaf;
  if (typeof leaf !== 'string' || leaf.length > 5) return undefined;
  const s = leaf.toLowerCase();
  if (s === 'true' || s === '1' || s === 'yes') return true;
  if (s === 'false' || s === '0' || s === 'no') return false;
  return undefined;
}

/**
 * `s.toLowerCase()`, returning `s` itself when it has no ASCII capital and no non-ASCII character (most
 * log text): the platform may allocate a copy even when nothing changes.
 */
export function toLower(s: string): string {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 128 || (c >= 65 && c <= 90)) return s.toLowerCase();
  }
  return s;
}

/** Whether every code unit is ASCII (then lowercasing changes no length). */
export function isAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) >= 128) return false;
  return true;
}

const LOWER_CACHE_SIZE = 32;

/**
 * Lowercases event text with a small ring of recent results: the same field value is usually tested by
 * many rules in a row, so it is lowercased once. Lowercasing is a pure function, so entries stay valid
 * across events.
 */
export class LowerCache {
  private readonly keys: (string | undefined)[] = new Array<string | undefined>(LOWER_CACHE_SIZE).fill(undefined);
  private readonly values: string[] = new Array<string>(LOWER_CACHE_SIZE).fill('');
  private next = 0;

  lower(s: string): string {
    const keys = this.keys;
    for (let i = 0; i < LOWER_CACHE_SIZE; i++) {
      if (keys[i] === s) return this.values[i] as string;
    }
    const l = toLower(s);
    const slot = this.next;
    keys[slot] = s;
    this.values[slot] = l;
    this.next = (slot + 1) % LOWER_CACHE_SIZE;
    return l;
  }

  /** Lowercased text form of a leaf (numbers and booleans have no uppercase). */
  lowerOf(leaf: unknown): string | undefined {
    return typeof leaf === 'string' ? this.lower(leaf) : textOf(leaf);
  }
}
