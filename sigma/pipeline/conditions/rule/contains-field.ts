// Some detection item uses this field name.
import Type from 'typebox';
import type { Static } from 'typebox';
import type { RulePredicate } from '../../types.js';
import { someItem } from './rule-items.js';

export const type = 'contains_field';

export const params = Type.Object({ field: Type.String() }, { additionalProperties: false });

export function create(p: Static<typeof params>): RulePredicate {
  return (doc) => someItem(doc, (item) => item.field === p.field);
}
