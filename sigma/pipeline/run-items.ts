// Runs processing items, in order, on one rule: checks each item's rule conditions, applies its
// transformation with the item's detection-item/field-name conditions, records what was applied.
import type { DetectionItem } from '../ast.js';
import { SigmaError } from '../errors.js';
import type { AnyRule, ApplyContext, FieldPredicate, ProcessingItem, RunState } from './types.js';
import { documentLoc } from '../rule/document-loc.js';

/** Runs `items` on `doc`; stops at the first item that fails the rule (its error is in `run.errors`). */
export function runItems(items: readonly ProcessingItem[], doc: AnyRule, run: RunState): AnyRule {
  let current = doc;
  for (const item of items) {
    if (!item.ruleConditions.holds((p) => p(current, run))) continue;
    const rule = current;
    const ctx: ApplyContext = {
      run,
      id: item.id,
      loc: item.loc,
      itemSelected: (di) => itemSelected(item, di, run),
      fieldSelected: (name) => item.fieldConditions.holds((p) => p.field(name, run)),
      fail: (code, message) => run.errors.push(ruleError(rule, item, code, message)),
    };
    current = item.transformation.apply(current, ctx);
    run.applied.add(item.id);
    // Errors only ever come from this rule's run (state is per rule), so any error means "failed".
    if (run.errors.length > 0) return current;
  }
  return current;
}

function itemSelected(item: ProcessingItem, di: DetectionItem, run: RunState): boolean {
  return item.itemConditions.holds((p) => p(di, run)) && item.fieldConditions.holds((p) => fieldHolds(p, di, run));
}

/** A field-name condition on an item looks at its field and at the fields its field references name. */
function fieldHolds(p: FieldPredicate, di: DetectionItem, run: RunState): boolean {
  if (p.item) return p.item(di, run);
  if (p.field(di.field, run)) return true;
  return di.values.some((v) => v.kind === 'fieldref' && p.field(v.field, run));
}

function ruleError(doc: AnyRule, item: ProcessingItem, code: string, message: string): SigmaError {
  const at = item.loc.line !== undefined ? `${item.loc.file}:${item.loc.line}` : item.loc.file;
  return new SigmaError('pipeline', code, `${message} (processing item '${item.id}' of type ${item.type} at ${at})`, documentLoc(doc, []));
}
