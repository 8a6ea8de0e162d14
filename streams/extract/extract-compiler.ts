import type { ExtractLanguage } from '../../protocol/index.js';
import { compileCel } from './cel-extract.js';
import type { Extractor } from './extractor.js';
import { JqLanguage } from './jq-extract.js';
import { compileJsonPath } from './jsonpath-extract.js';

/** One entry point for the three languages, shared by enrichers, dynamic sources and input filters. */
export interface ExtractCompiler {
  /** Throws `ExtractCompileError` naming the expression. Repeated expressions come from a cache. */
  compile(language: ExtractLanguage, expression: string): Promise<Extractor>;
}

/** Enough for every expression of a config; rendered per-call expressions (lookup) evict the oldest. */
const DEFAULT_CACHE_SIZE = 1024;

/**
 * Compiles and caches extractors. jq's wasm module is loaded on the first jq expression only, so a
 * daemon without jq pays nothing for it.
 */
export function createExtractCompiler(cacheSize = DEFAULT_CACHE_SIZE): ExtractCompiler {
  const cache = new Map<string, Extractor>();
  let jq: Promise<JqLanguage> | undefined;

  async function build(language: ExtractLanguage, expression: string): Promise<Extractor> {
    switch (language) {
      case 'jq':
        jq ??= JqLanguage.load();
        return (await jq).compile(expression);
      case 'jsonpath':
        return compileJsonPath(expression);
      case 'cel':
        return compileCel(expression);
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
