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

/**
 * 64-bit FNV-1a over the UTF-8 bytes, 16 lower-case hex digits (§9.5: stable across restarts). The
 * 64-bit state is two 32-bit halves (prime = 2^40 + 0x1b3), far cheaper than BigInt per byte, and
 * the UTF-8 bytes are produced on the fly instead of encoding the string first.
 */
export function fnv1a64(text: string): string {
  hi = 0xcbf29ce4;
  lo = 0x84222325;
  for (let i = 0; i < text.length; i++) {
    let c = text.charCodeAt(i);
    if (c < 0x80) {
      step(c);
      continue;
    }
    if (c >= 0xd800 && c < 0xdc00 && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d < 0xe000) {
        c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
        i++;
      }
    }
    // A lone surrogate encodes as U+FFFD, as TextEncoder does.
    if (c >= 0xd800 && c < 0xe000) c = 0xfffd;
    if (c < 0x800) {
      step(0xc0 | (c >> 6));
    } else if (c < 0x10000) {
      step(0xe0 | (c >> 12));
      step(0x80 | ((c >> 6) & 0x3f));
    } else {
      step(0xf0 | (c >> 18));
      step(0x80 | ((c >> 12) & 0x3f));
      step(0x80 | ((c >> 6) & 0x3f));
    }
    step(0x80 | (c & 0x3f));
  }
  return hi.toString(16).padStart(8, '0') + lo.toString(16).padStart(8, '0');
}

/** The hash state of the running `fnv1a64` (module-level: no closure per call; the function never re-enters). */
let hi = 0;
let lo = 0;

function step(byte: number): void {
  lo = (lo ^ byte) >>> 0;
  const low = lo * 0x1b3;
  hi = (hi * 0x1b3 + lo * 256 + Math.floor(low / TWO32)) >>> 0;
  lo = low >>> 0;
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
