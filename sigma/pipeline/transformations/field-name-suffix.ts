// Appends a suffix to every field name.
import Type from 'typebox';
import type { Static } from 'typebox';
import type { Transformation } from '../types.js';
import { mapFieldNames } from '../walk.js';

export const type = 'field_name_suffix';

export const params = Type.Object({ suffix: Type.String() }, { additionalProperties: false });

export function create(p: Static<typeof params>): Transformation {
  return { apply: (doc, ctx) => mapFieldNames(doc, ctx, (name) => [name + p.suffix]) };
}
