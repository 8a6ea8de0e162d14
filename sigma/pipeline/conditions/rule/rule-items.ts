// Rule conditions that look inside a detection rule's items (correlations have none).
import type { Detection, DetectionItem } from '../../../ast.js';
import type { AnyRule } from '../../types.js';

export function someItem(doc: AnyRule, test: (item: DetectionItem) => boolean): boolean {
  if (doc.kind !== 'detection') return false;
  const visit = (d: Detection): boolean => d.children.some((c) => (c.kind === 'item' ? test(c) : visit(c)));
  for (const d of doc.detections.values()) if (visit(d)) return true;
  return false;
}
