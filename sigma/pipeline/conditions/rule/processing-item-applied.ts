// An earlier processing item with this id was applied to the rule.
import Type from 'typebox';
import type { Static } from 'typebox';
import type { RulePredicate } from '../../types.js';

export const type = 'processing_item_applied';

export const params = Type.Object({ processing_item_id: Type.String() }, { additionalProperties: false });

export function create(p: Static<typeof params>): RulePredicate {
  return (_doc, run) => run.applied.has(p.processing_item_id);
}
