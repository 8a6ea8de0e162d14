// The search identifiers and conditions of a `detection:` section (or a filter's `filter:` section).
import type { Detection } from '../ast.js';
import { parseDetectionDefinition } from './detection-definition.js';
import type { DocumentContext } from './document-context.js';
import { isPlainObject } from './plain-data.js';
import type { KeyPath } from './source-positions.js';

export interface DetectionSection {
  readonly detections: ReadonlyMap<string, Detection>;
  readonly condition: readonly string[];
}

const REFERENCEABLE = /^[A-Za-z0-9_-]+$/;

/** Search identifiers of `section` in document order, skipping `reserved` keys. */
export function parseSearchIdentifiers(
  section: Readonly<Record<string, unknown>>,
  reserved: readonly string[],
  ctx: DocumentContext,
  path: KeyPath,
): ReadonlyMap<string, Detection> | undefined {
  const detections = new Map<string, Detection>();
  let ok = true;
  for (const [name, value] of Object.entries(section)) {
    if (reserved.includes(name)) continue;
    if (!REFERENCEABLE.test(name)) {
      ctx.warn('UnreferenceableIdentifier', `search identifier '${name}' cannot be referenced from a condition`, [...path, name]);
    }
    const detection = parseDetectionDefinition(value, ctx, [...path, name]);
    if (detection) detections.set(name, detection);
    else ok = false;
  }
  if (detections.size === 0 && ok) {
    ctx.error('parse', 'NoSearchIdentifier', 'at least one search identifier is required', path);
    return undefined;
  }
  return ok ? detections : undefined;
}

export function parseDetectionSection(value: unknown, ctx: DocumentContext): DetectionSection | undefined {
  const path = ['detection'];
  if (value === undefined) {
    ctx.error('parse', 'MissingDetection', "'detection' is required", []);
    return undefined;
  }
  if (!isPlainObject(value)) {
    ctx.error('parse', 'InvalidDetection', "'detection' must be a mapping", path);
    return undefined;
  }
  // Legacy v1 aggregation window; correlations replaced it (§2.1).
  if (Object.hasOwn(value, 'timeframe')) ctx.warn('TimeframeIgnored', "legacy 'timeframe' is ignored", [...path, 'timeframe']);
  const condition = parseConditionList(value['condition'], ctx, [...path, 'condition']);
  const detections = parseSearchIdentifiers(value, ['condition', 'timeframe'], ctx, path);
  return condition && detections ? { detections, condition } : undefined;
}

/** `condition`: a non-empty string or a non-empty list of them (a list means OR of its entries). */
function parseConditionList(value: unknown, ctx: DocumentContext, path: KeyPath): readonly string[] | undefined {
  if (value === undefined || value === null) {
    ctx.error('parse', 'MissingCondition', "'condition' is required", path);
    return undefined;
  }
  const list = Array.isArray(value) ? value : [value];
  if (list.length === 0) {
    ctx.error('parse', 'MissingCondition', "'condition' must not be empty", path);
    return undefined;
  }
  let ok = true;
  list.forEach((c, i) => {
    const at = Array.isArray(value) ? [...path, i] : path;
    if (typeof c !== 'string') {
      ctx.error('parse', 'InvalidCondition', 'a condition must be a string', at);
      ok = false;
    } else if (c.trim() === '') {
      ctx.error('parse', 'MissingCondition', 'a condition must not be empty', at);
      ok = false;
    }
  });
  return ok ? (list as string[]) : undefined;
}
