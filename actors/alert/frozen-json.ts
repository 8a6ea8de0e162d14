import { InternTable } from './intern.js';

/** Strings at most this long are shared store-wide (rule ids, titles, levels, tags, host names). */
const SHARED_MAX = 36;
const SHARED = new InternTable<string>(50_000);
/** Short lists of such strings (tags, selection names) are shared whole. */
const LIST_MAX = 8;
const LISTS = new InternTable<readonly string[]>(10_000);

/**
 * A JSON value parsed from `text` in the densest form a store can hold for long: frozen, short
 * strings shared with every other entry, and a long string that repeats inside the value (or in
 * `also`, parsed with it: a dedup sample and its fingerprint fields name the same command line) held
 * once. The values are only ever read and serialised, so sharing is invisible in the output.
 */
export function frozenJsonPair(text: string, also: string): readonly [unknown, unknown] {
  const local = new Map<string, string>();
  return [freeze(JSON.parse(text), local, false), freeze(JSON.parse(also), local, false)];
}

/**
 * The same form built from values someone else holds (the live path: the result the stage already
 * parsed), without serialising and parsing them again: a frozen private copy holding what
 * `JSON.stringify` would write, so it serialises to the same text and equals `frozenJsonPair` of it.
 */
export function frozenCopyPair(value: unknown, also: unknown): readonly [unknown, unknown] {
  const local = new Map<string, string>();
  return [freeze(value, local, true), freeze(also, local, true)];
}

function share(s: string, local: Map<string, string>): string {
  if (s.length <= SHARED_MAX) return SHARED.get(s, () => s);
  const seen = local.get(s);
  if (seen !== undefined) return seen;
  local.set(s, s);
  return s;
}

/** Whether `JSON.stringify` writes the value (`undefined`, functions and symbols it leaves out). */
function written(v: unknown): boolean {
  return v !== undefined && typeof v !== 'function' && typeof v !== 'symbol';
}

/** An array or plain object that `JSON.stringify` writes key by key (no `toJSON`, no boxed primitive or class instance). */
function plain(v: object): boolean {
  if (typeof (v as { toJSON?: unknown }).toJSON === 'function') return false;
  if (Array.isArray(v)) return true;
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/**
 * Freezes a value, sharing its strings: a freshly parsed one in place (nobody else holds it), or,
 * with `copy`, into new objects, as `JSON.parse(JSON.stringify(v))` would read it.
 */
function freeze(v: unknown, local: Map<string, string>, copy: boolean): unknown {
  if (typeof v === 'string') return share(v, local);
  // JSON has no NaN, infinities or -0: JSON.stringify writes null and 0 for them.
  if (typeof v === 'number') return Number.isFinite(v) ? (v === 0 ? 0 : v) : null;
  if (typeof v !== 'object' || v === null) return v;
  if (copy && !plain(v)) return freeze(JSON.parse(JSON.stringify(v)), local, false);
  if (Array.isArray(v)) {
    const a: unknown[] = copy ? new Array<unknown>(v.length) : v;
    let shareable = v.length <= LIST_MAX;
    for (let i = 0; i < v.length; i++) {
      const item: unknown = v[i];
      const e = (a[i] = written(item) ? freeze(item, local, copy) : null);
      shareable &&= typeof e === 'string' && e.length <= SHARED_MAX;
    }
    // Keyed by the list's JSON: unambiguous ([] and [""] differ), and short.
    return shareable ? LISTS.get(JSON.stringify(a), () => Object.freeze(a as string[])) : Object.freeze(a);
  }
  const o = v as Record<string, unknown>;
  if (!copy) {
    // An own `__proto__` (JSON.parse makes one) is a data property here: assignment writes it.
    for (const k of Object.keys(o)) o[k] = freeze(o[k], local, false);
    return Object.freeze(o);
  }
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(o)) {
    const item = o[k];
    if (!written(item)) continue;
    // Assigning `__proto__` on a new object would set its prototype: define the own key instead.
    if (k === '__proto__') Object.defineProperty(out, k, { value: freeze(item, local, true), enumerable: true, writable: true, configurable: true });
    else out[k] = freeze(item, local, true);
  }
  return Object.freeze(out);
}
