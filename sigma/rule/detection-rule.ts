import type { DetectionRule } from '../ast.js';
import { parseDetectionSection } from './detection-section.js';
import type { DocumentContext } from './document-context.js';
import { parseLogsource } from './logsource.js';
import type { PlainObject } from './plain-data.js';
import { parseRuleMeta } from './rule-meta.js';

export function parseDetectionRule(raw: PlainObject, ctx: DocumentContext): DetectionRule | undefined {
  const meta = parseRuleMeta(raw, ctx, ['logsource', 'detection']);
  const logsource = parseLogsource(raw['logsource'], ctx);
  const section = parseDetectionSection(raw['detection'], ctx);
  if (!meta || !logsource || !section || ctx.failed) return undefined;
  return { ...meta, kind: 'detection', logsource, detections: section.detections, condition: section.condition };
}
