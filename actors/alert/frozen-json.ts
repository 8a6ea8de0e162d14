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
  return [freeze(JSON.parse(text), local), freeze(JSON.parse(also), local)];
}

function share(s: string, local: Map<string, string>): string {
  if (s.length <= SHARED_MAX) return SHARED.get(s, () => s);
  const seen = local.get(s);
  if (seen !== undefined) return seen;
  local.set(s, s);
  return s;
}

/** Freezes a freshly parsed value in place (nobody else holds it), sharing its strings. */
function freeze(v: unknown, local: Map<string, string>): unknown {
  if (typeof v === 'string') return share(v, local);
  if (typeof v !== 'object' || v === null) return v;
  if (Array.isArray(v)) {
    let shareable = v.length <= LIST_MAX;
    for (let i = 0; i < v.length; i++) {
      const e = (v[i] = freeze(v[i], local));
      shareable &&= typeof e === 'string' && e.length <= SHARED_MAX;
    }
    // Keyed by the list's JSON: unambiguous ([] and [""] differ), and short.
    if (shareable) return LISTS.get(JSON.stringify(v), () => Object.freeze(v as string[]));
  } else {
    const o = v as Record<string, unknown>;
    // An own `__proto__` (JSON.parse makes one) is a data property here: assignment writes it.
    for (const k of Object.keys(o)) o[k] = freeze(o[k], local);
  }
  return Object.freeze(v);
}
