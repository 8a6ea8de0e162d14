// After drop_detection_item emptied selections, rewrite the condition strings with those identifiers
// pruned as absent nodes (sigma-semantics.md §4.4), so the compiler sees a well-formed condition over the
// identifiers that are left. A condition that vanishes entirely is removed (the rule can never match).
import type { DetectionRule } from '../ast.js';
import { parseCondition, printCondition, resolveSelectors } from '../condition/index.js';

export function pruneConditions(doc: DetectionRule, absent: ReadonlySet<string>): DetectionRule {
  if (absent.size === 0) return doc;
  const identifiers = [...doc.detections.keys()];
  const condition: string[] = [];
  for (const text of doc.condition) {
    let node;
    try {
      node = resolveSelectors(parseCondition(text), identifiers, absent);
    } catch {
      // An invalid condition is the compiler's to report, with its own message and location.
      condition.push(text);
      continue;
    }
    if (node !== null) condition.push(printCondition(node));
  }
  return { ...doc, condition };
}
