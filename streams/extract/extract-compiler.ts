import type { ExtractLanguage } from '../../protocol/index.js';
import type { Extractor } from './extractor.js';
import type { JqLanguage } from './jq-extract.js';

/** One entry point for the three languages, shared by enrichers, dynamic sources and input filters. */
export interface ExtractCompiler {
  /** Throws `ExtractCompileError` naming the expression. Repeated expressions come from a cache. */
  compile(language: ExtractLanguage, expression: string): Promise<Extractor>;
}

/** Enough for every expression of a config; rendered per-call expressions (lookup) evict the oldest. */
const DEFAULT_CACHE_SIZE = 1024;

/**
 * Compiles and caches extractors. Each language's module (and library) is imported on its first
 * expression, and jq's wasm module loaded then, so a daemon or worker without them pays nothing for them
 * (issue 19 §2/§3: CEL builds its function registry as it loads).
 */
export function createExtractCompiler(cacheSize = DEFAULT_CACHE_SIZE): ExtractCompiler {
  const cache = new Map<string, Extractor>();
  let jq: Promise<JqLanguage> | undefined;

  async function build(language: ExtractLanguage, expression: string): Promise<Extractor> {
    switch (language) {
      case 'jq':
        jq ??= import('./jq-extract.js').then((m) => m.JqLanguage.load());
        return (await jq).compile(expression);
      case 'jsonpath':
        return (await import('./jsonpath-extract.js')).compileJsonPath(expression);
      case 'cel':
        return (await import('./cel-extract.js')).compileCel(expression);
      default: {
        const never: never = language;
        throw new Error(`unknown extract language ${String(never)}`);
      }
    }
  }

  return {
    async compile(language, expression) {
      const key = `${language}\u0000${expression}`;
      const cached = cache.get(key);
      if (cached !== undefined) return cached;
      const extractor = await build(language, expression);
      if (cache.size >= cacheSize) cache.delete(cache.keys().next().value as string);
      cache.set(key, extractor);
      return extractor;
    },
  };
}
