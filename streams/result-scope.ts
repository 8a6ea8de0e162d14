/**
 * The scope filter shared by webhooks, enrichers, risk and the alert pipeline (daemon-semantics
 * §7.4): rules by id or title glob, tags exact or by prefix, levels; populated axes are ANDed.
 */

export interface ScopeConfig {
  readonly rules?: readonly string[];
  readonly tags?: readonly string[];
  readonly levels?: readonly string[];
}

const SCOPE_LEVELS = ['informational', 'low', 'medium', 'high', 'critical'] as const;

export type ScopeFilter = (result: Readonly<Record<string, unknown>>) => boolean;

class ScopeError extends Error {
  override readonly name = 'ScopeError';
}

/** A glob (`*`, `?`, `[…]` classes, `[!…]` negated) as an anchored regex; an unclosed class is an error. */
function globRegex(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] ?? '';
    if (c === '*') re += '.*';
    else if (c === '?') re += '.';
    else if (c === '[') {
      const end = glob.indexOf(']', i + 2);
      if (end === -1) throw new ScopeError(`invalid glob ${JSON.stringify(glob)}: unclosed [`);
      let body = glob.slice(i + 1, end);
      if (body.startsWith('!')) body = `^${body.slice(1)}`;
      re += `[${body.replace(/\\/g, '\\\\')}]`;
      i = end;
    } else re += c.replace(/[.+^${}()|\\\]]/g, '\\$&');
  }
  return new RegExp(`^${re}$`, 's');
}

type TagMatch = (tag: string) => boolean;

function tagMatcher(pattern: string): TagMatch {
  if (pattern.endsWith('.*')) {
    const prefix = pattern.slice(0, -2);
    return (t) => t.startsWith(prefix);
  }
  if (pattern.endsWith('*')) {
    const prefix = pattern.slice(0, -1);
    return (t) => t.startsWith(prefix);
  }
  return (t) => t === pattern;
}

export function compileScope(scope: ScopeConfig | undefined): ScopeFilter {
  const ids = new Set<string>();
  const titles: RegExp[] = [];
  for (const r of scope?.rules ?? []) {
    if (/[*?[]/.test(r)) titles.push(globRegex(r));
    else ids.add(r);
  }
  const tags = (scope?.tags ?? []).map(tagMatcher);
  const levels = new Set(scope?.levels ?? []);
  for (const l of levels) if (!(SCOPE_LEVELS as readonly string[]).includes(l)) throw new ScopeError(`invalid level ${JSON.stringify(l)} (one of ${SCOPE_LEVELS.join(', ')})`);
  const rulesAxis = ids.size > 0 || titles.length > 0;
  return (r) => {
    if (rulesAxis) {
      const id = r['rule_id'];
      const title = r['rule_title'];
      const byId = typeof id === 'string' && ids.has(id);
      if (!byId && !(typeof title === 'string' && titles.some((g) => g.test(title)))) return false;
    }
    if (tags.length > 0) {
      const own = Array.isArray(r['tags']) ? (r['tags'] as unknown[]) : [];
      if (!own.some((t) => typeof t === 'string' && tags.some((m) => m(t)))) return false;
    }
    if (levels.size > 0) {
      const level = r['level'];
      if (typeof level !== 'string' || !levels.has(level)) return false;
    }
    return true;
  };
}
