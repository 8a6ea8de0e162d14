// A value is null.
import Type from 'typebox';
import type { Static } from 'typebox';
import type { ItemPredicate } from '../../types.js';
import { Cond, quantify } from './value-quantifier.js';

export const type = 'is_null';

export const params = Type.Object({ cond: Cond }, { additionalProperties: false });

export function create(p: Static<typeof params>): ItemPredicate {
  return (item) => quantify(p.cond, item, (v) => v.kind === 'null');
}
