/**
 * Whether identifier `name` is selected by an `of` target (pySigma rules, sigma-semantics §4.3):
 * `them` selects every name not starting with `_`; a pattern must match the whole name, `*` matching
 * any run of characters, and selects `_` names only when the pattern itself starts with `_`.
 */
export function selectorMatches(target: string, name: string): boolean {
  if (target === 'them') return !name.startsWith('_');
  if (name.startsWith('_') && !target.startsWith('_')) return false;
  return globFullMatch(target, 0, name, 0);
}

/** `*` = any run, every other character literal. Backtracks only on `*`, so patterns stay cheap. */
function globFullMatch(pattern: string, pi: number, name: string, ni: number): boolean {
  let p = pi;
  let n = ni;
  let starP = -1;
  let starN = 0;
  while (n < name.length) {
    if (p < pattern.length && pattern[p] === '*') {
      starP = p++;
      starN = n;
    } else if (p < pattern.length && pattern[p] === name[n]) {
      p++;
      n++;
    } else if (starP >= 0) {
      p = starP + 1;
      n = ++starN;
    } else {
      return false;
    }
  }
  while (p < pattern.length && pattern[p] === '*') p++;
  return p === pattern.length;
}
