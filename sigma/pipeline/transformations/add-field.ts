// Appends to the rule's `fields` (output columns), not to the detection; like pySigma, duplicates too.
import Type from 'typebox';
import type { Static } from 'typebox';
import type { Transformation } from '../types.js';
import { asList, withFields } from './output-fields.js';

export const type = 'add_field';

export const params = Type.Object({ field: Type.Union([Type.String(), Type.Array(Type.String())]) }, { additionalProperties: false });

export function create(p: Static<typeof params>): Transformation {
  const added = asList(p.field);
  return {
    apply: (doc) => {
      return withFields(doc, [...(doc.fields ?? []), ...added]);
    },
  };
}
