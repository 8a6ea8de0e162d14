// Removes names from the rule's `fields` (the first occurrence of each, like Python's list.remove).
import Type from 'typebox';
import type { Static } from 'typebox';
import type { Transformation } from '../types.js';
import { asList, withFields } from './output-fields.js';

export const type = 'remove_field';

export const params = Type.Object({ field: Type.Union([Type.String(), Type.Array(Type.String())]) }, { additionalProperties: false });

export function create(p: Static<typeof params>): Transformation {
  const removed = asList(p.field);
  return {
    apply: (doc) => {
      if (!doc.fields) return doc;
      const fields = [...doc.fields];
      for (const name of removed) {
        const at = fields.indexOf(name);
        if (at >= 0) fields.splice(at, 1);
      }
      return withFields(doc, fields);
    },
  };
}
