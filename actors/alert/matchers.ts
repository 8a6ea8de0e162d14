import type { AlertMatcher } from '../../protocol/index.js';
import { unsafeRegexReason } from './regex-safety.js';
import { AlertConfigError, parseSelector, resolveSelector, valueText } from './selectors.js';
import type { AlertResult, Selector } from './selectors.js';

/** A matcher ready to run (daemon-semantics §9.3). */
export interface CompiledMatcher {
  readonly selector: Selector;
  readonly op: '=' | '!=' | '=~' | '!~';
  readonly value: string;
  readonly regex?: RegExp;
}

/** Most matchers one silence or inhibit list may hold (issue 13). */
export const MAX_MATCHERS = 64;

/** Compiles a matcher list; the error names `where` and the matcher's index and field. */
export function compileMatchers(list: readonly AlertMatcher[], where: string): readonly CompiledMatcher[] {
  if (list.length === 0) throw new AlertConfigError(`${where}: must be a non-empty list of {selector, op, value}`);
  if (list.length > MAX_MATCHERS) throw new AlertConfigError(`${where}: at most ${MAX_MATCHERS} matchers (got ${list.length})`);
  return list.map((m, i) => {
    const at = `${where}[${i}]`;
    const selector = parseSelector(m.selector);
    if ('error' in selector) throw new AlertConfigError(`${at}.selector: ${selector.error}`);
    const op = m.op ?? '=';
    if (op === '=' || op === '!=') return { selector, op, value: m.value };
    const unsafe = unsafeRegexReason(m.value);
    if (unsafe !== undefined) throw new AlertConfigError(`${at}.value: regex refused: ${unsafe}`);
    let regex: RegExp;
    try {
      regex = new RegExp(`^(?:${m.value})$`, 'u');
    } catch (error) {
      throw new AlertConfigError(`${at}.value: invalid regex: ${error instanceof Error ? error.message : String(error)}`);
    }
    return { selector, op, value: m.value, regex };
  });
}

function matchOne(m: CompiledMatcher, result: AlertResult): boolean {
  const resolved = resolveSelector(m.selector, result);
  // Absent resolves to the empty string (§9.3).
  const text = resolved === undefined ? '' : valueText(resolved);
  switch (m.op) {
    case '=':
      return text === m.value;
    case '!=':
      return text !== m.value;
    case '=~':
      return (m.regex as RegExp).test(text);
    case '!~':
      return !(m.regex as RegExp).test(text);
  }
}

/** All matchers match; an empty set never matches. */
export function matchesAll(matchers: readonly CompiledMatcher[], result: AlertResult): boolean {
  if (matchers.length === 0) return false;
  // A loop, not `every` with a closure: this runs for every result and inhibit rule.
  for (const m of matchers) if (!matchOne(m, result)) return false;
  return true;
}
