// The detection item was produced or changed by the processing item with this id.
import Type from 'typebox';
import type { Static } from 'typebox';
import type { ItemPredicate } from '../../types.js';
import { itemAppliedIds } from '../../walk.js';

export const type = 'processing_item_applied';

export const params = Type.Object({ processing_item_id: Type.String() }, { additionalProperties: false });

export function create(p: Static<typeof params>): ItemPredicate {
  return (item, run) => itemAppliedIds(run, item).has(p.processing_item_id);
}
