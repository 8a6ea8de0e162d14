// A string value contains a `*` or `?` wildcard.
import Type from 'typebox';
import type { Static } from 'typebox';
import { hasWildcards } from '../../../value/index.js';
import type { ItemPredicate } from '../../types.js';
import { Cond, quantify } from './value-quantifier.js';

export const type = 'contains_wildcard';

export const params = Type.Object({ cond: Cond }, { additionalProperties: false });

export function create(p: Static<typeof params>): ItemPredicate {
  return (item) => quantify(p.cond, item, (v) => v.kind === 'string' && hasWildcards(v.parts));
}
