// A whole rule set: parse every source, check references, merge filters, order for compilation.
import type { SigmaDocument } from '../ast.js';
import { applyFilters } from './apply-filters.js';
import type { LoadResult } from './load-result.js';
import { parseRuleText } from './parse-rule-text.js';
import { orderByReferences, resolveReferences } from './references.js';

export interface RuleSource {
  readonly file: string;
  readonly text: string;
}

/**
 * Detection rules (filters merged in), correlations and the filters themselves, referenced rules first.
 * Documents with errors are left out; their errors are in the result.
 */
export function loadRules(sources: readonly RuleSource[]): LoadResult {
  const result: LoadResult = { documents: [], errors: [], warnings: [] };
  const parsed: SigmaDocument[] = [];
  for (const source of sources) {
    const one = parseRuleText(source.text, source.file);
    parsed.push(...one.documents);
    result.errors.push(...one.errors);
    result.warnings.push(...one.warnings);
  }
  const refs = resolveReferences(parsed);
  result.errors.push(...refs.errors);
  result.warnings.push(...refs.warnings);
  const accepted = parsed.filter((d) => !refs.rejected.has(d));
  const detections = accepted.filter((d) => d.kind === 'detection');
  const filters = accepted.filter((d) => d.kind === 'filter');
  const filtered = applyFilters(detections, filters);
  result.warnings.push(...filtered.warnings);
  const replaced = new Map<SigmaDocument, SigmaDocument>(detections.map((d, i) => [d, filtered.rules[i] ?? d]));
  result.documents.push(...orderByReferences(accepted.map((d) => replaced.get(d) ?? d)));
  return result;
}
