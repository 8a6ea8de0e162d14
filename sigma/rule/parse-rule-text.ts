// One rule file's text → its documents (detection rules, correlations, filters), errors and warnings.
import type { SigmaDocument } from '../ast.js';
import { applyCollectionActions } from './collection.js';
import type { RawDocument } from './collection.js';
import { parseCorrelationRule } from './correlation-rule.js';
import { parseDetectionRule } from './detection-rule.js';
import { DocumentContext } from './document-context.js';
import { parseFilterRule } from './filter-rule.js';
import type { LoadResult } from './load-result.js';
import { parseYamlDocuments } from './yaml-documents.js';

export function parseRuleText(text: string, file: string): LoadResult {
  const yaml = parseYamlDocuments(text, file);
  const collection = applyCollectionActions(yaml.documents, file);
  const result: LoadResult = {
    documents: [],
    errors: [...yaml.errors, ...collection.errors],
    warnings: [...yaml.warnings, ...collection.warnings],
  };
  for (const raw of collection.documents) {
    const ctx = new DocumentContext(file, raw.index, raw.positions);
    const doc = parseDocument(raw, ctx);
    if (doc) result.documents.push(doc);
    result.errors.push(...ctx.errors);
    result.warnings.push(...ctx.warnings);
  }
  result.errors.sort((a, b) => (a.loc?.doc ?? 0) - (b.loc?.doc ?? 0));
  return result;
}

// The kind is decided by top-level keys: `correlation` first, then `filter` (§1.1).
function parseDocument(raw: RawDocument, ctx: DocumentContext): SigmaDocument | undefined {
  if (Object.hasOwn(raw.value, 'correlation')) return parseCorrelationRule(raw.value, ctx);
  if (Object.hasOwn(raw.value, 'filter')) return parseFilterRule(raw.value, ctx);
  return parseDetectionRule(raw.value, ctx);
}
