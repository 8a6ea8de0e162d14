// Removes names from the rule's `fields`.
import Type from 'typebox';
import type { Static } from 'typebox';
import type { Transformation } from '../types.js';
import { asList, withFields } from './output-fields.js';

export const type = 'remove_field';

export const params = Type.Object({ field: Type.Union([Type.String(), Type.Array(Type.String())]) }, { additionalProperties: false });

export function create(p: Static<typeof params>): Transformation {
  const removed = new Set(asList(p.field));
  return { apply: (doc) => (doc.fields ? withFields(doc, doc.fields.filter((f) => !removed.has(f))) : doc) };
}
