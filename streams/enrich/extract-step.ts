import type { ExtractLanguage } from '../../protocol/index.js';
import type { ExtractCompiler, Extractor } from '../extract/index.js';
import type { CompiledTemplate } from '../result-template.js';
import type { ResultRecord } from './enricher.js';

/** An enricher's `extract`, applied to fetched or cached data on behalf of one result. */
export type ExtractStep = (data: unknown, result: ResultRecord) => unknown;

/**
 * The expression is a template (§7.1 checks its namespace): one without `${…}` is compiled at load,
 * one with tokens is rendered per result and compiled once per distinct text by the shared cache.
 */
export async function compileExtractStep(source: string, template: CompiledTemplate, language: ExtractLanguage, extract: ExtractCompiler): Promise<ExtractStep> {
  if (!source.includes('${')) {
    const fixed: Extractor = await extract.compile(language, source);
    return (data) => fixed.evaluate(data);
  }
  return async (data, result) => (await extract.compile(language, template.render(result))).evaluate(data);
}
