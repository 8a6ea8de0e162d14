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

/**
 * 64-bit FNV-1a over UTF-8 bytes, 16 lower-case hex digits (§9.5: stable across restarts), fed piece
 * by piece: the hash of the pieces' concatenation without building it (keys are a few fixed
 * separators and resolved values; the concatenation would be built, flattened and scanned twice).
 * The 64-bit state is four 16-bit limbs (prime = 2^40 + 0x1b3: each limb times 0x1b3, plus the state
 * shifted 40 bits, carries propagated), so every step is small-integer arithmetic: no BigInt, no
 * floating point, no boxed numbers. Text is encoded to UTF-8 as it is hashed (a lone surrogate as
 * U+FFFD, as TextEncoder does); a surrogate pair split across two pieces is not joined, so callers
 * put an ASCII separator between values.
 */
export class Fnv1a64 {
  private h0 = 0x2325;
  private h1 = 0x8422;
  private h2 = 0x9ce4;
  private h3 = 0xcbf2;

  /** Back to the offset basis (the hash of no bytes). */
  reset(): this {
    this.h0 = 0x2325;
    this.h1 = 0x8422;
    this.h2 = 0x9ce4;
    this.h3 = 0xcbf2;
    return this;
  }

  /** Hashes the UTF-8 bytes of `text`. */
  add(text: string): this {
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c < 0x80) this.byte(c);
      else if (c < 0x800) {
        this.byte(0xc0 | (c >> 6));
        this.byte(0x80 | (c & 63));
      } else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
        const cp = 0x10000 + ((c - 0xd800) << 10) + (text.charCodeAt(++i) - 0xdc00);
        this.byte(0xf0 | (cp >> 18));
        this.byte(0x80 | ((cp >> 12) & 63));
        this.byte(0x80 | ((cp >> 6) & 63));
        this.byte(0x80 | (cp & 63));
      } else {
        const u = (c & 0xf800) === 0xd800 ? 0xfffd : c;
        this.byte(0xe0 | (u >> 12));
        this.byte(0x80 | ((u >> 6) & 63));
        this.byte(0x80 | (u & 63));
      }
    }
    return this;
  }

  /** The hash so far as 16 hex digits. */
  hex(): string {
    return hex16(this.h3, this.h2, this.h1, this.h0);
  }

  private byte(b: number): void {
    const h0 = this.h0 ^ b;
    const t0 = Math.imul(h0, 0x1b3);
    const t1 = Math.imul(this.h1, 0x1b3) + (t0 >>> 16);
    const t2 = Math.imul(this.h2, 0x1b3) + (h0 << 8) + (t1 >>> 16);
    this.h3 = (Math.imul(this.h3, 0x1b3) + (this.h1 << 8) + (t2 >>> 16)) & 0xffff;
    this.h0 = t0 & 0xffff;
    this.h1 = t1 & 0xffff;
    this.h2 = t2 & 0xffff;
  }
}

/** The one hasher of the (single-threaded, non-reentrant) hot paths, reset at each use. */
export const FNV = new Fnv1a64();

/** 64-bit FNV-1a of one text (see Fnv1a64). */
export function fnv1a64(text: string): string {
  return FNV.reset().add(text).hex();
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
