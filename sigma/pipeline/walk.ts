// The one walker every transformation goes through: rule → detection → item → field name / value.
// Transformations supply a hook for the unit they change; the walker rebuilds only what changed,
// records provenance (which processing item produced an item or a field name) and reports search
// identifiers whose detection became empty.
import type { CorrelationRule, Detection, DetectionItem, SigmaValue } from '../ast.js';
import type { AnyRule, ApplyContext, RunState } from './types.js';

/** `undefined`: unchanged; `null`: drop the item; otherwise the replacement (an item or a sub-detection). */
type ItemResult = DetectionItem | Detection | null | undefined;
export type ItemHook = (item: DetectionItem) => ItemResult;
/** `undefined`: unchanged; a list replaces the value by alternatives. */
export type ValueHook = (value: SigmaValue, item: DetectionItem) => SigmaValue | readonly SigmaValue[] | undefined;
/** `undefined`: not renamed; otherwise one or several new names. */
export type FieldHook = (name: string) => readonly string[] | undefined;

/** Calls `hook` on every detection item the processing item's conditions select. */
export function mapDetectionItems(doc: AnyRule, ctx: ApplyContext, hook: ItemHook): AnyRule {
  if (doc.kind !== 'detection') return doc;
  let changed = false;
  const detections = new Map<string, Detection>();
  for (const [name, detection] of doc.detections) {
    const next = mapDetection(detection, ctx, hook);
    if (next !== detection) changed = true;
    if (next === null) ctx.run.absent.add(name);
    else detections.set(name, next);
  }
  return changed ? { ...doc, detections } : doc;
}

function mapDetection(d: Detection, ctx: ApplyContext, hook: ItemHook): Detection | null {
  let changed = false;
  const children: (Detection | DetectionItem)[] = [];
  for (const child of d.children) {
    const next = child.kind === 'item' ? mapItem(child, ctx, hook) : mapDetection(child, ctx, hook);
    if (next !== child) changed = true;
    if (next !== null) children.push(next);
  }
  if (!changed) return d;
  // An emptied detection is an absent node: it disappears from its parent (pySigma pruning).
  return children.length === 0 ? null : { ...d, children };
}

function mapItem(item: DetectionItem, ctx: ApplyContext, hook: ItemHook): Detection | DetectionItem | null {
  if (!ctx.itemSelected(item)) return item;
  const next = hook(item);
  if (next === undefined || next === item) return item;
  if (next !== null) markApplied(next, item, ctx);
  return next;
}

/** Records that `ctx.id` produced `next` (and every item inside it), inheriting `from`'s provenance. */
function markApplied(next: Detection | DetectionItem, from: DetectionItem, ctx: ApplyContext): void {
  const previous = ctx.run.itemApplied.get(from);
  const ids = new Set(previous);
  ids.add(ctx.id);
  const visit = (n: Detection | DetectionItem): void => {
    if (n.kind === 'item') ctx.run.itemApplied.set(n, ids);
    else n.children.forEach(visit);
  };
  visit(next);
}

export function itemAppliedIds(run: RunState, item: DetectionItem): ReadonlySet<string> {
  return run.itemApplied.get(item) ?? EMPTY;
}
const EMPTY: ReadonlySet<string> = new Set();

/** Calls `hook` on every value (and expansion alternative) of the selected detection items. */
export function mapItemValues(doc: AnyRule, ctx: ApplyContext, hook: ValueHook): AnyRule {
  return mapDetectionItems(doc, ctx, (item) => {
    let changed = false;
    const values: SigmaValue[] = [];
    for (const v of item.values) {
      const next = mapValue(v, item, hook);
      if (next === undefined) {
        values.push(v);
        continue;
      }
      changed = true;
      if (!isList(next)) values.push(next);
      // Alternatives are OR-ed: spliced into an OR item, kept as one expansion operand under `|all`.
      // No alternatives at all is an empty expansion, which matches nothing (an item without values
      // would mean "field is null").
      else if (next.length > 0 && (item.linking === 'or' || next.length === 1)) values.push(...next);
      else values.push({ kind: 'expansion', alternatives: next });
    }
    return changed ? { ...item, values } : undefined;
  });
}

function mapValue(v: SigmaValue, item: DetectionItem, hook: ValueHook): SigmaValue | readonly SigmaValue[] | undefined {
  if (v.kind !== 'expansion') return hook(v, item);
  let changed = false;
  const alternatives: SigmaValue[] = [];
  for (const alt of v.alternatives) {
    const next = mapValue(alt, item, hook);
    if (next === undefined) alternatives.push(alt);
    else {
      changed = true;
      if (isList(next)) alternatives.push(...next);
      else alternatives.push(next);
    }
  }
  return changed ? { kind: 'expansion', alternatives } : undefined;
}

function isList(v: SigmaValue | readonly SigmaValue[]): v is readonly SigmaValue[] {
  return Array.isArray(v);
}

/**
 * Renames field names everywhere a rule names a field: detection items (a 1:n rename becomes an OR of
 * copies), field references, the rule's `fields`, and a correlation's group-by, alias targets and
 * condition fields. `keyword` handles field-less items when the transformation gives them a field.
 */
export function mapFieldNames(doc: AnyRule, ctx: ApplyContext, rename: FieldHook, keyword?: ItemHook): AnyRule {
  const renamed = (name: string): readonly string[] | undefined => {
    const targets = rename(name);
    if (targets !== undefined) recordFieldNames(ctx, targets);
    return targets;
  };
  const renameList = (names: readonly string[]): readonly string[] | undefined => {
    let changed = false;
    const out: string[] = [];
    for (const n of names) {
      const targets = ctx.fieldSelected(n) ? renamed(n) : undefined;
      if (targets === undefined) out.push(n);
      else {
        changed = true;
        out.push(...targets);
      }
    }
    return changed ? out : undefined;
  };
  const fields = doc.fields ? renameList(doc.fields) : undefined;
  const withFields: AnyRule = fields ? { ...doc, fields } : doc;
  if (withFields.kind === 'correlation') return renameCorrelationFields(withFields, ctx, renamed);
  return mapDetectionItems(withFields, ctx, (item) => renameItem(item, renamed, keyword));
}

/** Records that the current processing item produced these field names. */
export function recordFieldNames(ctx: ApplyContext, names: readonly string[]): void {
  for (const n of names) {
    const ids = ctx.run.fieldApplied.get(n) ?? new Set<string>();
    ids.add(ctx.id);
    ctx.run.fieldApplied.set(n, ids);
  }
}

function renameItem(item: DetectionItem, renamed: FieldHook, keyword: ItemHook | undefined): ItemResult {
  if (item.field === null) return keyword?.(item);
  const values = renameFieldRefs(item.values, renamed);
  const base = values === item.values ? item : { ...item, values };
  const targets = renamed(item.field);
  if (targets === undefined) return base === item ? undefined : base;
  const copies = targets.map((field) => ({ ...base, field }));
  if (copies.length === 1 && copies[0]) return copies[0];
  return { kind: 'detection', linking: 'or', children: copies };
}

function renameFieldRefs(values: readonly SigmaValue[], renamed: FieldHook): readonly SigmaValue[] {
  let changed = false;
  const out = values.map((v): SigmaValue => {
    if (v.kind !== 'fieldref') return v;
    const targets = renamed(v.field);
    if (targets === undefined) return v;
    changed = true;
    const refs = targets.map((field) => ({ ...v, field }));
    return refs.length === 1 && refs[0] ? refs[0] : { kind: 'expansion', alternatives: refs };
  });
  return changed ? out : values;
}

function renameCorrelationFields(doc: CorrelationRule, ctx: ApplyContext, renamed: FieldHook): CorrelationRule {
  // Correlation keys must stay single field names: a 1:n rename cannot apply there.
  const single = (name: string): string => {
    if (!ctx.fieldSelected(name)) return name;
    const targets = renamed(name);
    if (targets === undefined) return name;
    const [first] = targets;
    if (targets.length !== 1 || first === undefined) {
      ctx.fail('pipeline_correlation_multi_field', `field '${name}' of a correlation rule cannot be mapped to ${targets.length} fields`);
      return name;
    }
    return first;
  };
  const aliasNames = new Set(Object.keys(doc.aliases));
  // An alias name in group-by or the condition refers to the alias, not to an event field.
  const field = (name: string): string => (aliasNames.has(name) ? name : single(name));
  const groupBy = doc.groupBy.map(field);
  const aliases: Record<string, Record<string, string>> = {};
  for (const [alias, perRule] of Object.entries(doc.aliases)) {
    const mapped: Record<string, string> = {};
    for (const [ruleRef, eventField] of Object.entries(perRule)) mapped[ruleRef] = single(eventField);
    aliases[alias] = mapped;
  }
  const condition =
    doc.condition?.field === undefined ? doc.condition : { ...doc.condition, field: doc.condition.field.map(field) };
  return { ...doc, groupBy, aliases, condition };
}
