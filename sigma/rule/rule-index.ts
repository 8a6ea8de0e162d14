// Rule references (sigma-semantics §1.8): by exact `id` first, then by `name`.
import type { CorrelationRule, DetectionRule, SigmaDocument } from '../ast.js';

export type ReferencableRule = DetectionRule | CorrelationRule;

export interface RuleIndex {
  readonly byId: ReadonlyMap<string, ReferencableRule>;
  readonly byName: ReadonlyMap<string, ReferencableRule>;
}

/** Index detection and correlation rules; the first document wins a duplicate id or name. */
export function buildRuleIndex(docs: readonly SigmaDocument[]): RuleIndex {
  const byId = new Map<string, ReferencableRule>();
  const byName = new Map<string, ReferencableRule>();
  for (const doc of docs) {
    if (doc.kind === 'filter') continue;
    if (doc.id !== undefined && !byId.has(doc.id)) byId.set(doc.id, doc);
    if (doc.name !== undefined && !byName.has(doc.name)) byName.set(doc.name, doc);
  }
  return { byId, byName };
}

export function findRule(index: RuleIndex, ref: string): ReferencableRule | undefined {
  return index.byId.get(ref) ?? index.byName.get(ref);
}
