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
      for (const f of fields as unknown[]) if (isObject(f) && f['field'] === field) return f['value'];
      return undefined;
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

const utf8 = new TextEncoder();
const NON_ASCII = /[^\u0000-\u007f]/;

/**
 * 64-bit FNV-1a over the UTF-8 bytes, 16 lower-case hex digits (§9.5: stable across restarts). The
 * 64-bit state is four 16-bit limbs in locals (prime = 2^40 + 0x1b3: each limb times 0x1b3, plus the
 * state shifted 40 bits, carries propagated), so every step is small-integer arithmetic: no BigInt,
 * no floating point, no boxed numbers. ASCII text (the usual case) is hashed from its code units
 * without encoding it; other text through TextEncoder (a lone surrogate becomes U+FFFD).
 */
export function fnv1a64(text: string): string {
  const bytes = NON_ASCII.test(text) ? utf8.encode(text) : undefined;
  const n = bytes === undefined ? text.length : bytes.length;
  let h0 = 0x2325;
  let h1 = 0x8422;
  let h2 = 0x9ce4;
  let h3 = 0xcbf2;
  for (let i = 0; i < n; i++) {
    h0 ^= bytes === undefined ? text.charCodeAt(i) : (bytes[i] as number);
    const t0 = Math.imul(h0, 0x1b3);
    const t1 = Math.imul(h1, 0x1b3) + (t0 >>> 16);
    const t2 = Math.imul(h2, 0x1b3) + (h0 << 8) + (t1 >>> 16);
    h3 = (Math.imul(h3, 0x1b3) + (h1 << 8) + (t2 >>> 16)) & 0xffff;
    h0 = t0 & 0xffff;
    h1 = t1 & 0xffff;
    h2 = t2 & 0xffff;
  }
  return hex16(h3, h2, h1, h0);
}

const DIGITS = '0123456789abcdef';

/** Four 16-bit limbs, most significant first, as 16 hex digits in one string (no number formatting, no padding). */
function hex16(a: number, b: number, c: number, d: number): string {
  const x = (v: number, shift: number): number => DIGITS.charCodeAt((v >>> shift) & 15);
  return String.fromCharCode(x(a, 12), x(a, 8), x(a, 4), x(a, 0), x(b, 12), x(b, 8), x(b, 4), x(b, 0), x(c, 12), x(c, 8), x(c, 4), x(c, 0), x(d, 12), x(d, 8), x(d, 4), x(d, 0));
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
