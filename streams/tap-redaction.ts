import { createHash, randomBytes } from 'node:crypto';

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

/** A session's tokens by canonical: `svc:redacted:<16 hex>` under its salt, cached (see TOKEN_CACHE). */
export type Tokenizer = (canonical: string) => string;

export function createTokenizer(salt: Uint8Array, cache: { readonly entries: number; readonly maxChars: number } = TOKEN_CACHE): Tokenizer {
  const tokens = new Map<string, string>();
  return (canonical) => {
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
}

/** The canonical form a token hashes (§14.1); undefined for what JSON cannot hold. */
const canonicalOf = (value: unknown): string | undefined => (typeof value === 'string' ? value : (JSON.stringify(value) as string | undefined));

/** The redactor of `paths` (dotted, non-empty) under one session's `salt`. */
export function createRedactor(paths: readonly string[], salt: Uint8Array, cache: { readonly entries: number; readonly maxChars: number } = TOKEN_CACHE): Redactor {
  return redactorWith(paths, salt, createTokenizer(salt, cache));
}

/** The redactor of `paths` taking its tokens from `tokenOf` (the session's, made under `salt`). */
export function redactorWith(paths: readonly string[], salt: Uint8Array, tokenOf: Tokenizer): Redactor {
  const split = paths.map((p) => p.split('.'));
  // Keyed by the canonical form the token hashes, so `"42"` and `42` share an entry as they share a token.
  const token = (value: unknown): string => {
    const canonical = canonicalOf(value);
    return canonical === undefined ? redactionToken(salt, value) : tokenOf(canonical);
  };
  return (value) => split.reduce((v, path) => redactAt(v, path, 0, token), value);
}

/**
 * A value redacted for every session that redacts some of the same paths, whatever its salt: the compact
 * JSON of the value with every path redacted, cut at its tokens. `parts[k]` comes before the k-th slot
 * of the text; `parts` has one more element than `slots`.
 */
export interface RedactedText {
  readonly parts: readonly string[];
  readonly slots: readonly RedactedSlot[];
}

export interface RedactedSlot {
  /** What a session's token for it hashes. */
  readonly canonical: string;
  /** Which of the paths put it there. */
  readonly path: number;
  /** The value's own compact JSON, for a session that does not redact that path. */
  readonly json: string;
}

/** Per process, unguessable: marks where tokens go in the shared text (a value holding it only makes the cut fail). */
const SLOT = `svc-slot-${randomBytes(16).toString('hex')}-`;
const SLOT_QUOTED = `"${SLOT}`;

/**
 * `value` redacted at `paths` with its tokens left open, or undefined when that cannot be shared (a path
 * redacting what another already redacted hashes a token, which differs per session; a value JSON cannot
 * hold; a slot marker in the value itself): the caller then redacts per session, as before.
 * `renderRedacted(redactedText(p, v), createTokenizer(s))` is `JSON.stringify(createRedactor(p, s)(v))`,
 * and, for paths whose places cannot nest (see `pathUnion`), rendering only the slots of some of them is
 * the JSON of redacting just those.
 */
export function redactedText(paths: readonly string[], value: unknown): RedactedText | undefined {
  const slots: RedactedSlot[] = [];
  let shareable = true;
  let path = 0;
  const slot = (node: unknown): string => {
    const canonical = canonicalOf(node);
    if (canonical === undefined || canonical.includes(SLOT)) shareable = false;
    slots.push({ canonical: canonical ?? '', path, json: typeof node === 'string' ? JSON.stringify(node) : (canonical ?? '') });
    return SLOT + String(slots.length - 1);
  };
  let redacted = value;
  for (; path < paths.length; path++) redacted = redactAt(redacted, (paths[path] as string).split('.'), 0, slot);
  if (!shareable) return undefined;
  const text = JSON.stringify(redacted) as string | undefined;
  if (text === undefined) return undefined;
  const parts: string[] = [];
  const ordered: RedactedSlot[] = [];
  const seen = new Set<number>();
  let from = 0;
  for (let at = text.indexOf(SLOT_QUOTED); at !== -1; at = text.indexOf(SLOT_QUOTED, from)) {
    const close = text.indexOf('"', at + SLOT_QUOTED.length);
    const index = Number(text.slice(at + SLOT_QUOTED.length, close));
    const found = slots[index];
    if (close === -1 || found === undefined || seen.has(index)) return undefined;
    seen.add(index);
    parts.push(text.slice(from, at));
    ordered.push(found);
    from = close + 1;
  }
  // Every slot cut exactly once, or the text is not what the sessions would send.
  if (seen.size !== slots.length) return undefined;
  parts.push(text.slice(from));
  return { parts, slots: ordered };
}

/**
 * One session's line from a shared redacted text: its tokens (JSON strings needing no escapes) in the
 * slots of the paths it redacts (`redacts[path]`; all of them when absent), the value's own JSON in the others.
 */
export function renderRedacted(shared: RedactedText, tokenOf: Tokenizer, redacts?: readonly boolean[]): string {
  let text = shared.parts[0] as string;
  for (let k = 0; k < shared.slots.length; k++) {
    const slot = shared.slots[k] as RedactedSlot;
    text += (redacts === undefined || redacts[slot.path] === true ? `"${tokenOf(slot.canonical)}"` : slot.json) + (shared.parts[k + 1] as string);
  }
  return text;
}

/**
 * Paths whose places in any value are apart (none inside or equal to another's), so that a text redacted
 * at all of them serves a session redacting any of them: no numeric segment (an index and a fan-out can
 * land on the same element), no path a prefix of another. Undefined when `paths` are not all such.
 */
export function pathUnion(lists: readonly (readonly string[])[]): string[] | undefined {
  const union = [...new Set(lists.flat())];
  const split = union.map((p) => p.split('.'));
  if (split.some((segments) => segments.some((s) => INDEX.test(s)))) return undefined;
  const prefixOf = (a: readonly string[], b: readonly string[]): boolean => a.length <= b.length && a.every((s, i) => s === b[i]);
  for (let i = 0; i < split.length; i++) for (let j = 0; j < split.length; j++) if (i !== j && prefixOf(split[i] as string[], split[j] as string[])) return undefined;
  return union;
}
