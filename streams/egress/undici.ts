// undici (the HTTP client of webhooks, dynamic sources and enrichers), required the first time one of
// them is built: a daemon or an eval without them never loads it (issue 19 §2/§3: it was ≈ 10 % of the
// start-up's module loading). Required, not bundled: the egress agent is built synchronously.
import { createRequire } from 'node:module';
import type * as Undici from 'undici';

let loaded: typeof Undici | undefined;

export function undici(): typeof Undici {
  loaded ??= createRequire(import.meta.url)('undici') as typeof Undici;
  return loaded;
}
