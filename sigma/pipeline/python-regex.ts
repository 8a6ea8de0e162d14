// Pipelines are written for pySigma, so their regexes use Python's `re` dialect. This adapts the parts
// that differ in JavaScript: named groups/back-references and `re.sub` replacement templates.
import { catastrophicBacktracking } from '../regex-safety.js';

function translatePattern(pattern: string): string {
  return pattern.replace(/\(\?P</g, '(?<').replace(/\(\?P=(\w+)\)/g, '\\k<$1>');
}

/** Like Python `re.match`: anchored at the start only. Throws on an invalid pattern. */
export function compileMatch(pattern: string, flags = ''): RegExp {
  return refusingBacktracking(new RegExp(`^(?:${translatePattern(pattern)})`, flags));
}

/** Like Python `re.compile` for `re.sub`/`re.search` (global). Throws on an invalid pattern. */
export function compileSearch(pattern: string): RegExp {
  return refusingBacktracking(new RegExp(translatePattern(pattern), 'g'));
}

/** Pipelines need V8's replace semantics (RE2 differs), so a pattern of an exponential shape is refused. */
function refusingBacktracking(re: RegExp): RegExp {
  const why = catastrophicBacktracking(re);
  if (why !== undefined) throw new Error(`regular expression may backtrack catastrophically: ${why}`);
  return re;
}

/**
 * Expands a Python `re.sub` template (`\1`, `\g<1>`, `\g<name>`, `\\`, `\n`, `\t`) for one match.
 * Returns a function usable as a `String.prototype.replace` replacer.
 */
export function pythonReplacer(template: string): (match: string, ...args: unknown[]) => string {
  return (match, ...args) => {
    const last = args[args.length - 1];
    const named = typeof last === 'object' && last !== null ? (last as Record<string, string | undefined>) : undefined;
    const groups = args.slice(0, named ? -3 : -2);
    const group = (ref: string): string => {
      if (/^\d+$/.test(ref)) {
        const n = Number(ref);
        const g = n === 0 ? match : groups[n - 1];
        return typeof g === 'string' ? g : '';
      }
      return named?.[ref] ?? '';
    };
    return template.replace(/\\(?:g<(\w+)>|(\d{1,2})|(.))/gs, (_m, gname: string | undefined, num: string | undefined, ch: string | undefined) => {
      if (gname !== undefined) return group(gname);
      if (num !== undefined) return group(num);
      if (ch === 'n') return '\n';
      if (ch === 't') return '\t';
      if (ch === '\\') return '\\';
      return `\\${ch ?? ''}`;
    });
  };
}
