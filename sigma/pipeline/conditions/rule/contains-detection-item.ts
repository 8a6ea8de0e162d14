// Some detection item has exactly this field and a value equal to `value` (compared after modifiers).
import Type from 'typebox';
import type { Static } from 'typebox';
import { sameValue, scalarValue } from '../../plain-string.js';
import type { RulePredicate } from '../../types.js';
import { someItem } from './rule-items.js';

export const type = 'contains_detection_item';

export const params = Type.Object(
  {
    field: Type.Union([Type.String(), Type.Null()]),
    value: Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()]),
  },
  { additionalProperties: false },
);

export function create(p: Static<typeof params>): RulePredicate {
  const wanted = scalarValue(p.value);
  return (doc) => someItem(doc, (item) => item.field === p.field && item.values.some((v) => sameValue(v, wanted)));
}
