import { EnrichError, type EnrichCall, type SourceLookup } from './enricher.js';
import type { ExtractStep } from './extract-step.js';

export interface LookupSettings {
  readonly source: string;
  readonly extract?: ExtractStep;
  /** `default:` when set (a YAML null counts as unset, §7.1). */
  readonly fallback?: unknown;
}

/**
 * `type: lookup` (§7.3): the cached value of a dynamic source through the extract expression. A miss
 * or an empty extract gives the default when there is one; an extract error is an error regardless.
 */
export function lookupCall(settings: LookupSettings, sources: SourceLookup): EnrichCall {
  const orDefault = (why: string): unknown => {
    if (settings.fallback !== undefined) return settings.fallback;
    throw new EnrichError(why);
  };
  return async (result) => {
    const cached = sources.get(settings.source);
    if (cached === undefined) return orDefault('cache miss');
    const value = settings.extract === undefined ? cached.value : await settings.extract(cached.value, result);
    return value ?? orDefault('no extract match');
  };
}
