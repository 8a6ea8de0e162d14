/**
 * Matches a request path against route paths with `{name}` parameters: static paths by map
 * lookup, parameter paths segment by segment; parameters are percent-decoded here (adapters pass
 * raw paths).
 */

type PathMatch<T> =
  | { readonly kind: 'found'; readonly value: T; readonly params: Record<string, string> }
  | { readonly kind: 'none' }
  | { readonly kind: 'bad_path' };

export interface PathMatcher<T> {
  match(path: string): PathMatch<T>;
}

export function compilePathMatcher<T>(entries: readonly (readonly [path: string, value: T])[]): PathMatcher<T> {
  const exact = new Map<string, T>();
  const patterns: { readonly segments: readonly string[]; readonly value: T }[] = [];
  for (const [path, value] of entries) {
    if (path.includes('{')) patterns.push({ segments: path.split('/'), value });
    else exact.set(path, value);
  }
  return {
    match(path) {
      const hit = exact.get(path);
      if (hit !== undefined) return { kind: 'found', value: hit, params: {} };
      const segments = path.split('/');
      for (const pattern of patterns) {
        const params = matchSegments(pattern.segments, segments);
        if (params === 'bad_path') return { kind: 'bad_path' };
        if (params !== undefined) return { kind: 'found', value: pattern.value, params };
      }
      return { kind: 'none' };
    },
  };
}

function matchSegments(
  pattern: readonly string[],
  segments: readonly string[],
): Record<string, string> | undefined | 'bad_path' {
  if (pattern.length !== segments.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i] as string;
    const s = segments[i] as string;
    if (p.startsWith('{')) {
      if (s === '') return undefined;
      try {
        params[p.slice(1, -1)] = decodeURIComponent(s);
      } catch {
        return 'bad_path';
      }
    } else if (p !== s) return undefined;
  }
  return params;
}
