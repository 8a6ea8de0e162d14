// Test-only reference matcher for string values: literal parts escaped, `*` any run, `?` one character,
// a windash position any of its five characters. Case-insensitive unless the value is cased.
import type { SigmaValue, StringPart } from '../../../sigma/ast.js';

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export function partsToRegExp(parts: readonly StringPart[], cased = true, anchored = true): RegExp {
  const body = parts
    .map((p) => {
      switch (p.t) {
        case 'lit':
          return escape(p.s);
        case 'any':
          return '[\\s\\S]*';
        case 'one':
          return '[\\s\\S]';
        case 'dash':
          return '[\\-/\\u2013\\u2014\\u2015]';
        case 'ph':
          throw new Error('placeholder in test glob');
      }
    })
    .join('');
  return new RegExp(anchored ? `^${body}$` : body, cased ? 'u' : 'iu');
}

/** Whether a string rule value (or any member of an expansion of them) matches an event string. */
export function matchesString(value: SigmaValue, event: string): boolean {
  if (value.kind === 'expansion') return value.alternatives.some((a) => matchesString(a, event));
  if (value.kind !== 'string') throw new Error(`not a string value: ${value.kind}`);
  return partsToRegExp(value.parts, value.cased).test(event);
}
