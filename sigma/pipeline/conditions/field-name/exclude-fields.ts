// The negation of `include_fields`: keyword items (no field name) do match.
import type { Static } from 'typebox';
import type { FieldPredicate } from '../../types.js';
import { fieldListed, params } from './include-fields.js';

export const type = 'exclude_fields';

export { params };

export function create(p: Static<typeof params>): FieldPredicate {
  const listed = fieldListed(p);
  return { field: (name) => !listed(name) };
}
