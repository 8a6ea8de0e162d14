/**
 * A static check that a matcher regex runs in linear time on V8's backtracking engine (issue 13:
 * super-linear patterns are refused). Refused: backreferences, lookaround, and a repeated group
 * that itself holds a repetition or an alternation (`(a+)+`, `(a|aa)*`), the shapes of catastrophic
 * backtracking. Conservative on purpose: some safe patterns are refused too, with a reason.
 */

const MAX_PATTERN = 1024;

interface Group {
  /** The group holds an unbounded quantifier or an alternation. */
  risky: boolean;
}

function unboundedAt(p: string, i: number): { unbounded: boolean; quantified: boolean; end: number } {
  const c = p[i];
  if (c === '*' || c === '+') return { unbounded: true, quantified: true, end: i + 1 };
  if (c === '?') return { unbounded: false, quantified: true, end: i + 1 };
  if (c === '{') {
    const m = /^\{(\d+)(,(\d*))?\}/.exec(p.slice(i));
    if (m !== null) return { unbounded: m[2] !== undefined && m[3] === '', quantified: true, end: i + m[0].length };
  }
  return { unbounded: false, quantified: false, end: i };
}

/** Why the pattern is refused, or undefined when it is safe to run. */
export function unsafeRegexReason(pattern: string): string | undefined {
  if (pattern.length > MAX_PATTERN) return `longer than ${MAX_PATTERN} characters`;
  const stack: Group[] = [{ risky: false }];
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') {
      const next = pattern[i + 1] ?? '';
      if (!inClass && (/[1-9]/.test(next) || next === 'k')) return 'backreferences are not allowed';
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      continue;
    }
    if (c === '[') {
      inClass = true;
      continue;
    }
    const top = stack[stack.length - 1] as Group;
    if (c === '(') {
      if (/^\(\?<?[=!]/.test(pattern.slice(i))) return 'lookaround is not allowed';
      stack.push({ risky: false });
      continue;
    }
    if (c === '|') {
      top.risky = true;
      continue;
    }
    if (c === ')') {
      if (stack.length === 1) return 'unbalanced parenthesis';
      const closed = stack.pop() as Group;
      const q = unboundedAt(pattern, i + 1);
      // `?` makes a group optional, not repeated.
      if (q.quantified && pattern[i + 1] !== '?' && closed.risky) return 'a repeated group holds a repetition or an alternation (super-linear backtracking)';
      const parent = stack[stack.length - 1] as Group;
      parent.risky ||= closed.risky || q.unbounded;
      i = q.end - 1;
      continue;
    }
    const q = unboundedAt(pattern, i);
    if (q.unbounded) top.risky = true;
    if (q.quantified) i = q.end - 1;
  }
  return undefined;
}
