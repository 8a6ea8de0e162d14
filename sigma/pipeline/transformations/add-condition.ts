// Adds a search identifier built from a detection mapping and ANDs it (or its negation) in front of
// every condition. With `template`, `$category`/`$product`/`$service` in string values come from the
// rule's logsource. Correlation rules have no detection and are left alone.
import Type from 'typebox';
import type { Static } from 'typebox';
import type { Detection, DetectionItem, DetectionRule, Scalar } from '../../ast.js';
import { SigmaError } from '../../errors.js';
import { buildDetectionItem } from '../../value/index.js';
import type { ApplyContext, Transformation } from '../types.js';
import { documentLoc } from '../../rule/document-loc.js';

export const type = 'add_condition';

const Value = Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()]);

export const params = Type.Object(
  {
    conditions: Type.Record(Type.String(), Type.Union([Value, Type.Array(Value)])),
    negated: Type.Optional(Type.Boolean()),
    template: Type.Optional(Type.Boolean()),
    name: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);
type Params = Static<typeof params>;

export function create(p: Params): Transformation {
  if (Object.keys(p.conditions).length === 0) throw new Error("'conditions' must not be empty");
  // Without templates the items are the same for every rule: build them once, relocate per rule.
  let shared: Built | undefined;
  const build = (doc: DetectionRule): Built => {
    if (p.template === true) return buildItems(doc, p);
    shared ??= buildItems(doc, p);
    return relocate(shared, doc);
  };
  return {
    apply: (doc, ctx) => (doc.kind === 'detection' ? addCondition(doc, p, ctx, build(doc)) : doc),
  };
}

/** The items with the `conditions` key each was built from, or the reason building failed. */
type Built = { readonly items: readonly KeyedItem[] } | { readonly error: string };

interface KeyedItem {
  readonly key: string;
  readonly item: DetectionItem;
}

function addCondition(doc: DetectionRule, p: Params, ctx: ApplyContext, built: Built): DetectionRule {
  if ('error' in built) {
    ctx.fail('pipeline_add_condition', built.error);
    return doc;
  }
  const detection: Detection = { kind: 'detection', linking: 'and', children: built.items.map((k) => k.item) };
  const id = p.name ?? freeName(doc);
  const prefix = p.negated === true ? `not ${id} and ` : `${id} and `;
  const detections = new Map(doc.detections);
  detections.set(id, detection);
  return { ...doc, detections, condition: doc.condition.map((c) => `${prefix}(${c})`) };
}

/** `_cond_<n>`: the leading underscore keeps it out of `them`; a counter keeps the run deterministic. */
function freeName(doc: DetectionRule): string {
  let n = 1;
  while (doc.detections.has(`_cond_${n}`)) n++;
  return `_cond_${n}`;
}

function buildItems(doc: DetectionRule, p: Params): Built {
  const substitute = (v: Scalar): Scalar =>
    p.template === true && typeof v === 'string'
      ? v.replace(/\$(category|product|service)\b/g, (m, key: 'category' | 'product' | 'service') => doc.logsource[key] ?? m)
      : v;
  const items: KeyedItem[] = [];
  for (const [key, raw] of Object.entries(p.conditions)) {
    const [field = '', ...modifiers] = key.split('|');
    const values = (Array.isArray(raw) ? raw : [raw]).map(substitute);
    try {
      items.push({ key, item: buildDetectionItem(field === '' ? null : field, modifiers, values, documentLoc(doc, ['detection', key])).item });
    } catch (e) {
      return { error: e instanceof SigmaError ? e.message : String(e) };
    }
  }
  return { items };
}

/** The shared items with their locations moved to `doc`. */
function relocate(built: Built, doc: DetectionRule): Built {
  if ('error' in built) return built;
  return { items: built.items.map(({ key, item }) => ({ key, item: { ...item, loc: documentLoc(doc, ['detection', key]) } })) };
}
