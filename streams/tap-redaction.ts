import { createHash } from 'node:crypto';

/** A tap session's redactor: a copy of `value` with every path's values replaced by tokens. */
export type Redactor = (value: unknown) => unknown;

export const REDACTED_PREFIX = 'svc:redacted:';

/**
 * `svc:redacted:<16 hex>`: the first 8 bytes of SHA-256(salt ‖ canonical), canonical being a string
 * itself and anything else its compact JSON (daemon-semantics §14.1). Equal values give equal tokens
 * under one salt only, so tokens of two sessions cannot be joined.
 */
export function redactionToken(salt: Uint8Array, value: unknown): string {
  const canonical = typeof value === 'string' ? value : JSON.stringify(value);
  const hash = createHash('sha256').update(salt).update(canonical).digest('hex');
  return REDACTED_PREFIX + hash.slice(0, 16);
}

const INDEX = /^(0|[1-9][0-9]*)$/;

/**
 * Navigation of one dotted path (§14.1): an object takes the child by key; an array takes the index
 * of a numeric segment, and for any other segment applies the same remaining path to every element
 * (fail-closed fan-out); a missing key or a scalar before the end leaves the value as it is.
 * Copies what it changes: the event may be shared with other sessions.
 */
function redactAt(node: unknown, path: readonly string[], i: number, token: (v: unknown) => string): unknown {
  if (i === path.length) return token(node);
  const segment = path[i] as string;
  if (Array.isArray(node)) {
    if (INDEX.test(segment)) {
      const at = Number(segment);
      if (at >= node.length) return node;
      const copy = node.slice();
      copy[at] = redactAt(node[at], path, i + 1, token);
      return copy;
    }
    return node.map((element: unknown) => redactAt(element, path, i, token));
  }
  if (node === null || typeof node !== 'object' || !Object.hasOwn(node, segment)) return node;
  const child = (node as Record<string, unknown>)[segment];
  return { ...node, [segment]: redactAt(child, path, i + 1, token) };
}

/**
 * What a session's token cache holds: values repeat (users, hosts, addresses), and a cached token costs
 * a Map lookup instead of a SHA-256. Bounded in entries and in each canonical's length (at most about
 * 1 MB per session); full, it starts over.
 */
export const TOKEN_CACHE = { entries: 1_024, maxChars: 512 } as const;

/** The redactor of `paths` (dotted, non-empty) under one session's `salt`. */
export function createRedactor(paths: readonly string[], salt: Uint8Array, cache: { readonly entries: number; readonly maxChars: number } = TOKEN_CACHE): Redactor {
  const split = paths.map((p) => p.split('.'));
  const tokens = new Map<string, string>();
  const token = (value: unknown): string => {
    // Keyed by the canonical form the token hashes, so `"42"` and `42` share an entry as they share a token.
    const canonical = typeof value === 'string' ? value : (JSON.stringify(value) as string | undefined);
    if (canonical === undefined) return redactionToken(salt, value);
    // A string's token is its own canonical's: hashing `canonical` gives the value's token.
    if (canonical.length > cache.maxChars) return redactionToken(salt, canonical);
    let t = tokens.get(canonical);
    if (t === undefined) {
      if (tokens.size >= cache.entries) tokens.clear();
      t = redactionToken(salt, canonical);
      tokens.set(canonical, t);
    }
    return t;
  };
  return (value) => split.reduce((v, path) => redactAt(v, path, 0, token), value);
}
