// Replaces the rule's `fields`.
import Type from 'typebox';
import type { Static } from 'typebox';
import type { Transformation } from '../types.js';
import { withFields } from './output-fields.js';

export const type = 'set_field';

export const params = Type.Object({ fields: Type.Array(Type.String()) }, { additionalProperties: false });

export function create(p: Static<typeof params>): Transformation {
  return { apply: (doc) => withFields(doc, p.fields) };
}
