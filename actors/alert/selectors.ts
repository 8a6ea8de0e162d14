/**
 * Field selectors (daemon-semantics §9.2) and the value texts the alert pipeline hashes and matches.
 * A result is the JSON object a sink receives (detection or correlation).
 */

export type AlertResult = Readonly<Record<string, unknown>>;

type Namespace = 'rule' | 'level' | 'event' | 'match' | 'enrichment' | 'correlation.group_key';

export interface Selector {
  readonly namespace: Namespace;
  readonly path: readonly string[];
  /** Namespace plus dot-joined path: how the selector names itself in keys and records. */
  readonly text: string;
}

const PATH_NAMESPACES: readonly Namespace[] = ['correlation.group_key', 'enrichment', 'event', 'match'];

/** Parses a selector; `{error}` says what is wrong with it. */
export function parseSelector(input: string): Selector | { readonly error: string } {
  const text = input.trim();
  if (text === 'rule' || text === 'level') return { namespace: text, path: [], text };
  for (const ns of PATH_NAMESPACES) {
    if (!text.startsWith(`${ns}.`)) continue;
    const path = text.slice(ns.length + 1).split('.').filter((s) => s !== '');
    if (path.length === 0) return { error: `selector '${input}' has an empty path` };
    // `match.<Field>` names one field, dots included.
    const kept = ns === 'match' || ns === 'correlation.group_key' ? [path.join('.')] : path;
    return { namespace: ns, path: kept, text: `${ns}.${kept.join('.')}` };
  }
  return { error: `selector '${input}' has an unknown namespace (rule, level, event., match., enrichment., correlation.group_key.)` };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function walk(root: unknown, path: readonly string[]): unknown {
  let at = root;
  for (const seg of path) {
    if (!isObject(at)) return undefined;
    at = at[seg];
  }
  return at;
}

/** The rule identity of a result: its id, else its title. */
export function ruleOf(result: AlertResult): string {
  const id = result['rule_id'];
  return typeof id === 'string' && id !== '' ? id : String(result['rule_title'] ?? '');
}

/** What a selector resolves to in a result; `undefined` when nothing. */
export function resolveSelector(sel: Selector, result: AlertResult): unknown {
  switch (sel.namespace) {
    case 'rule':
      return ruleOf(result);
    case 'level': {
      const level = result['level'];
      return typeof level === 'string' ? level.toLowerCase() : undefined;
    }
    case 'event':
      return walk(result['event'], sel.path);
    case 'enrichment':
      return walk(result['enrichments'], sel.path);
    case 'match': {
      const fields = result['matched_fields'];
      if (!Array.isArray(fields)) return undefined;
      const field = sel.path[0];
      const hit = (fields as unknown[]).find((f) => isObject(f) && f['field'] === field);
      return isObject(hit) ? hit['value'] : undefined;
    }
    case 'correlation.group_key': {
      const key = result['group_key'];
      if (!Array.isArray(key)) return undefined;
      const pair = (key as unknown[]).find((p) => Array.isArray(p) && p[0] === sel.path[0]) as unknown[] | undefined;
      return pair === undefined ? undefined : String(pair[1]);
    }
  }
}

/** Strings raw, everything else compact JSON (null as `null`). */
export function valueText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

const TWO32 = 0x1_0000_0000;
const utf8 = new TextEncoder();
const NON_ASCII = /[^\u0000-\u007f]/;

/**
 * 64-bit FNV-1a over the UTF-8 bytes, 16 lower-case hex digits (§9.5: stable across restarts). The
 * 64-bit state is two 32-bit halves in locals (prime = 2^40 + 0x1b3): no BigInt and no boxed
 * numbers per byte. ASCII text (the usual case) is hashed from its code units without encoding it;
 * other text through TextEncoder (a lone surrogate becomes U+FFFD).
 */
export function fnv1a64(text: string): string {
  const bytes = NON_ASCII.test(text) ? utf8.encode(text) : undefined;
  const n = bytes === undefined ? text.length : bytes.length;
  let hi = 0xcbf29ce4;
  let lo = 0x84222325;
  for (let i = 0; i < n; i++) {
    lo = (lo ^ (bytes === undefined ? text.charCodeAt(i) : (bytes[i] as number))) >>> 0;
    const low = lo * 0x1b3;
    hi = (Math.imul(hi, 0x1b3) + lo * 256 + Math.floor(low / TWO32)) >>> 0;
    lo = low >>> 0;
  }
  return hexPair(hi, lo);
}

const HEX = [48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 97, 98, 99, 100, 101, 102];

/**
 * Two 32-bit words as 16 hex digits in one flat string: stores keep fingerprints as keys, and the
 * concatenation of two halves would be a cons string holding both (about 50 bytes more per key).
 */
function hexPair(hi: number, lo: number): string {
  const d = (w: number, shift: number): number => HEX[(w >>> shift) & 15] as number;
  return String.fromCharCode(d(hi, 28), d(hi, 24), d(hi, 20), d(hi, 16), d(hi, 12), d(hi, 8), d(hi, 4), d(hi, 0), d(lo, 28), d(lo, 24), d(lo, 20), d(lo, 16), d(lo, 12), d(lo, 8), d(lo, 4), d(lo, 0));
}

/** Parses every selector of a list, naming the list and the selector when one is bad. */
export function parseSelectors(list: readonly string[], where: string): readonly Selector[] {
  return list.map((text) => {
    const s = parseSelector(text);
    if ('error' in s) throw new AlertConfigError(`${where}: ${s.error}`);
    return s;
  });
}

/** A problem of an alert pipeline file or silence; the message names the key or field at fault. */
export class AlertConfigError extends Error {
  override readonly name = 'AlertConfigError';
}
