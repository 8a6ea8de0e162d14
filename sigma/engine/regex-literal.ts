// A literal every match of a Sigma regex must contain, for the candidate index. Deliberately conservative:
// only the top level of the pattern is read (a top-level `|` gives up), groups, classes, escapes other
// than escaped punctuation, wildcards and anchors end a literal run, and a character made optional by
// `?`, `*` or `{0,…}` is dropped. Only ASCII is kept, so the lowercased literal is a substring of the
// lowercased event text whenever the regex matches, with or without the `i` flag. Also a lower bound on
// the length of any match, read the same conservative way.

function isAsciiLiteral(c: string): boolean {
  return /^[A-Za-z0-9 !"#%&',/:;<=>@_`~-]$/.test(c);
}

function isEscapedPunctuation(c: string): boolean {
  return /^[.*+?^${}()|[\]\\/\-"'#%&,:;<=>@_`~!]$/.test(c);
}

/**
 * Index just past the escape that starts at `k` (a backslash): `\xHH`, `\uHHHH`, `\u{…}`, `\cX`, `\p{…}`,
 * `\k<…>` and digit runs (back-references, octal escapes) reach beyond their first character.
 */
function escapeEnd(p: string, k: number): number {
  const rest = p.slice(k + 1);
  const m = /^(?:x[0-9A-Fa-f]{2}|u[0-9A-Fa-f]{4}|u\{[0-9A-Fa-f]+\}|c[A-Za-z]|[pP]\{[^}]*\}|k<[^>]*>|[0-9]+)/.exec(rest);
  return k + 1 + (m === null ? 1 : m[0].length);
}

/** Index just past the group or class that opens at `k`, or -1 when it does not close. */
function skipBracketed(p: string, k: number): number {
  let depth = 0;
  let inClass = false;
  for (let i = k; i < p.length; i++) {
    const c = p[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') {
        inClass = false;
        if (depth === 0) return i + 1;
      }
      continue;
    }
    if (c === '[') {
      inClass = true;
      // A `]` right after `[` or `[^` is a literal.
      if (p[i + 1] === '^') i++;
      if (p[i + 1] === ']') i++;
    } else if (c === '(') depth++;
    else if (c === ')') {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

/** Whether a quantifier starting at `k` allows zero repetitions. */
function optionalQuantifier(p: string, k: number): boolean {
  const c = p[k];
  return c === '?' || c === '*' || (c === '{' && /^\{(?:0|,)/.test(p.slice(k)));
}

function isQuantifier(p: string, k: number): boolean {
  const c = p[k];
  return c === '?' || c === '*' || c === '+' || (c === '{' && /^\{\d*,?\d*\}/.test(p.slice(k)));
}

/** The longest required literal (lowercased), or '' when none can be proven. */
export function requiredRegexLiteral(pattern: string): string {
  let best = '';
  let run = '';
  const end = (): void => {
    if (run.length > best.length) best = run;
    run = '';
  };
  let k = 0;
  while (k < pattern.length) {
    const c = pattern[k] as string;
    let literal: string | null = null;
    let next = k + 1;
    if (c === '|') return '';
    if (c === '(' || c === '[') {
      next = skipBracketed(pattern, k);
      if (next < 0) return '';
    } else if (c === '\\') {
      const e = pattern[k + 1];
      if (e === undefined) return '';
      next = escapeEnd(pattern, k);
      if (isEscapedPunctuation(e)) literal = e;
    } else if (isAsciiLiteral(c)) literal = c;
    if (literal !== null && isQuantifier(pattern, next)) {
      // `a+` and `a{2}` still require one `a`; `a?`, `a*`, `a{0,3}` do not. Either way the run ends.
      if (!optionalQuantifier(pattern, next)) run += literal.toLowerCase();
      end();
    } else if (literal !== null) run += literal.toLowerCase();
    else end();
    k = next;
    // Skip a quantifier (and its lazy/possessive mark) that followed a non-literal token.
    while (k < pattern.length && isQuantifier(pattern, k)) {
      if (pattern[k] === '{') k = pattern.indexOf('}', k) + 1;
      else k++;
      end();
    }
  }
  end();
  return best;
}

/** Whether some `|` sits outside every group and class. */
function hasTopLevelAlternation(p: string): boolean {
  for (let k = 0; k < p.length; k++) {
    const c = p[k];
    if (c === '|') return true;
    if (c === '\\') k++;
    else if (c === '(' || c === '[') {
      const next = skipBracketed(p, k);
      if (next < 0) return true;
      k = next - 1;
    }
  }
  return false;
}

/** Repetitions a quantifier at `k` requires at least (1 when there is none), and where it ends. */
function quantifierAt(p: string, k: number): { readonly min: number; readonly next: number } {
  const c = p[k];
  let min = 1;
  let next = k;
  if (c === '?' || c === '*' || c === '+') {
    min = c === '+' ? 1 : 0;
    next = k + 1;
  } else if (c === '{') {
    const m = /^\{(\d+)(?:,\d*)?\}/.exec(p.slice(k));
    if (m === null) return { min, next };
    min = Number(m[1]);
    next = k + m[0].length;
  } else return { min, next };
  return { min, next: p[next] === '?' ? next + 1 : next };
}

/**
 * A lower bound on the length (UTF-16 code units) of any match of the JS regex `source`: every atom
 * matches at least one code unit, times the repetitions its quantifier requires. Conservative: groups
 * count 0, a top-level `|` gives 0, and counting stops at escapes whose extent is not read here
 * (backreferences, `\u`, `\x`, `\c`, `\p`, `\k`). Lets a matcher skip texts too short to match.
 */
export function regexMinLength(source: string): number {
  if (hasTopLevelAlternation(source)) return 0;
  let total = 0;
  let k = 0;
  while (k < source.length) {
    const c = source[k] as string;
    let atom = 1;
    let next = k + 1;
    if (c === '^' || c === '$') atom = 0;
    else if (c === '(' || c === '[') {
      next = skipBracketed(source, k);
      if (next < 0) return total;
      if (c === '(') atom = 0;
    } else if (c === '\\') {
      const e = source[k + 1];
      if (e === undefined || /[0-9ukxcpP]/.test(e)) return total;
      if (e === 'b' || e === 'B') atom = 0;
      next = k + 2;
    } else if (/[\uD800-\uDBFF]/.test(c) && /[\uDC00-\uDFFF]/.test(source[k + 1] ?? '')) {
      // A surrogate pair is one atom under the `u` flag: a quantifier applies to both halves.
      atom = 2;
      next = k + 2;
    }
    const q = quantifierAt(source, next);
    total += atom * q.min;
    k = q.next;
  }
  return total;
}
