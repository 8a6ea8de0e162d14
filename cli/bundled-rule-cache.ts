// The compiled-rule cache backed by the entry the build makes for `npm start`'s profile
// (scripts/build/bundled-rule-entry.ts), so that the first start of the bundled corpus reads it instead of
// compiling. It sits in dist/rule-cache, one level up from both the bundle (dist/bin) and tsc's output
// (dist/cli); an entry is only used under its key, so another build's or other rules never read it.
import { fileURLToPath } from 'node:url';
import type { RuleCacheUse } from '../streams/index.js';

export const BUNDLED_RULE_CACHE = fileURLToPath(new URL('../rule-cache/', import.meta.url));

/** The cache in `dir` (this thread stores there), falling back to the build's entry. */
export function ruleCacheIn(dir: string): RuleCacheUse {
  return { dir, store: true, bundled: BUNDLED_RULE_CACHE };
}
