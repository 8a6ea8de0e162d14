// One search identifier's value → Detection (sigma-semantics §2.2–2.3): mapping = AND of items,
// list = OR of its elements, scalars and scalar lists = one keyword item.
import type { Detection, DetectionItem, Scalar } from '../ast.js';
import { SigmaError } from '../errors.js';
import { buildDetectionItem } from '../value/index.js';
import type { DocumentContext } from './document-context.js';
import { isPlainObject } from './plain-data.js';
import type { KeyPath } from './source-positions.js';

export function parseDetectionDefinition(value: unknown, ctx: DocumentContext, path: KeyPath): Detection | undefined {
  if (isPlainObject(value)) return parseMapping(value, ctx, path);
  if (Array.isArray(value)) return parseList(value, ctx, path);
  return keywordDetection([value as Scalar], ctx, path);
}

function parseMapping(map: Readonly<Record<string, unknown>>, ctx: DocumentContext, path: KeyPath): Detection | undefined {
  const entries = Object.entries(map);
  if (entries.length === 0) {
    ctx.error('parse', 'EmptyDetection', 'detection is empty', path);
    return undefined;
  }
  const children: DetectionItem[] = [];
  for (const [key, raw] of entries) {
    const [first = '', ...modifiers] = key.split('|');
    const values = itemValues(raw, ctx, [...path, key]);
    if (values === undefined) continue;
    const item = buildItem(first === '' ? null : first, modifiers, values, ctx, [...path, key]);
    if (item) children.push(item);
  }
  return children.length === entries.length ? { kind: 'detection', linking: 'and', children } : undefined;
}

function parseList(list: readonly unknown[], ctx: DocumentContext, path: KeyPath): Detection | undefined {
  if (list.length === 0) {
    ctx.error('parse', 'EmptyDetection', 'detection list is empty', path);
    return undefined;
  }
  if (list.every(isScalar)) return keywordDetection(list, ctx, path);
  const children: Detection[] = [];
  list.forEach((element, i) => {
    const child = isScalar(element)
      ? keywordDetection([element], ctx, [...path, i])
      : parseDetectionDefinition(element, ctx, [...path, i]);
    if (child) children.push(child);
  });
  return children.length === list.length ? { kind: 'detection', linking: 'or', children } : undefined;
}

function keywordDetection(values: readonly Scalar[], ctx: DocumentContext, path: KeyPath): Detection | undefined {
  const item = buildItem(null, [], values, ctx, path);
  return item ? { kind: 'detection', linking: 'and', children: [item] } : undefined;
}

function itemValues(raw: unknown, ctx: DocumentContext, path: KeyPath): readonly Scalar[] | undefined {
  if (isScalar(raw)) return [raw];
  if (!Array.isArray(raw)) {
    ctx.error('parse', 'NestedValue', 'a detection value must be a scalar or a list of scalars, not a mapping', path);
    return undefined;
  }
  let ok = true;
  raw.forEach((v, i) => {
    if (isScalar(v)) return;
    ctx.error('parse', 'NestedValue', 'nested lists or mappings are not allowed in a value list', [...path, i]);
    ok = false;
  });
  if (!ok) return undefined;
  return raw as Scalar[];
}

function buildItem(
  field: string | null,
  modifiers: readonly string[],
  values: readonly Scalar[],
  ctx: DocumentContext,
  path: KeyPath,
): DetectionItem | undefined {
  try {
    const built = buildDetectionItem(field, modifiers, values, ctx.loc(path));
    ctx.warnings.push(...built.warnings);
    return built.item;
  } catch (e) {
    // A defect in the modifier chain must not abort a whole corpus: it becomes this rule's error.
    ctx.adopt(
      e instanceof SigmaError ? e : new SigmaError('value', 'InternalError', `building the item failed: ${String(e)}`, undefined, { cause: e }),
      path,
    );
    return undefined;
  }
}

function isScalar(v: unknown): v is Scalar {
  return v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
}
