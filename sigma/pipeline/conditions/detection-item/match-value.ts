// A value equals `value` with Sigma typing (a string never equals a number).
import Type from 'typebox';
import type { Static } from 'typebox';
import { sameValue, scalarValue } from '../../plain-string.js';
import type { ItemPredicate } from '../../types.js';
import { Cond, quantify } from './value-quantifier.js';

export const type = 'match_value';

export const params = Type.Object(
  { value: Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()]), cond: Cond },
  { additionalProperties: false },
);

export function create(p: Static<typeof params>): ItemPredicate {
  const wanted = scalarValue(p.value);
  return (item) => quantify(p.cond, item, (v) => sameValue(v, wanted));
}
