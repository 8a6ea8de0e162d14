// The field name was produced by renaming in the processing item with this id; for a detection item,
// the item was processed by it.
import Type from 'typebox';
import type { Static } from 'typebox';
import type { FieldPredicate } from '../../types.js';
import { itemAppliedIds } from '../../walk.js';

export const type = 'processing_item_applied';

export const params = Type.Object({ processing_item_id: Type.String() }, { additionalProperties: false });

export function create(p: Static<typeof params>): FieldPredicate {
  const id = p.processing_item_id;
  return {
    field: (name, run) => name !== null && (run.fieldApplied.get(name)?.has(id) ?? false),
    item: (item, run) => itemAppliedIds(run, item).has(id),
  };
}
