// Prepends a prefix to every field name (keyword items have none and stay as they are).
import Type from 'typebox';
import type { Static } from 'typebox';
import type { Transformation } from '../types.js';
import { mapFieldNames } from '../walk.js';

export const type = 'field_name_prefix';

export const params = Type.Object({ prefix: Type.String() }, { additionalProperties: false });

export function create(p: Static<typeof params>): Transformation {
  return { apply: (doc, ctx) => mapFieldNames(doc, ctx, (name) => [p.prefix + name]) };
}
