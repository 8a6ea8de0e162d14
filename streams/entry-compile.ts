import { compileScope, type ScopeConfig, type ScopeFilter } from './result-scope.js';
import { compileTemplate, type CompiledTemplate, type Escaping, type ResultKind } from './result-template.js';

/** What a config entry's `${…}` fields and scope compile into (webhooks, enrichers). */
export interface EntryParts {
  template(key: string, source: string, escaping: Escaping): CompiledTemplate;
  readonly scope: ScopeFilter;
}

/**
 * Compiles a webhook's or an enricher's scope now and hands out its templates: an error of either
 * goes to `fail` with the key it came from, so the config error can name it.
 */
export function compileEntryParts(
  entry: { readonly kind: ResultKind; readonly scope?: ScopeConfig | undefined },
  env: Readonly<Record<string, string | undefined>>,
  fail: (key: string, why: string) => never,
): EntryParts {
  const reason = (error: unknown): string => (error instanceof Error ? error.message : String(error));
  let scope: ScopeFilter;
  try {
    scope = compileScope(entry.scope);
  } catch (error) {
    scope = fail('scope', reason(error));
  }
  return {
    scope,
    template(key, source, escaping) {
      try {
        return compileTemplate(source, entry.kind, escaping, env);
      } catch (error) {
        return fail(key, reason(error));
      }
    },
  };
}
