// Keyword strings are searched as substrings (§2.7): the missing `*` is added at either end unless the
// item asked for an anchored end with `startswith`/`endswith`. Shared by the matcher compiler and the
// witness choice so both see the same pattern.
import type { StringPart } from '../ast.js';

export function keywordParts(parts: readonly StringPart[], modifiers: readonly string[]): StringPart[] {
  const out = [...parts];
  if (!modifiers.includes('startswith') && out[0]?.t !== 'any') out.unshift({ t: 'any' });
  if (!modifiers.includes('endswith') && out[out.length - 1]?.t !== 'any') out.push({ t: 'any' });
  return out;
}
