// Renames fields, 1:n as an OR of copies. The YAML `null` key gives keyword items a field.
import Type from 'typebox';
import type { Static } from 'typebox';
import type { Transformation } from '../types.js';
import { mapFieldNames } from '../walk.js';
import { NULL_KEY } from '../yaml-source.js';
import { keywordToFields } from './keyword-field.js';

export const type = 'field_name_mapping';

export const params = Type.Object(
  { mapping: Type.Record(Type.String(), Type.Union([Type.String(), Type.Array(Type.String())])) },
  { additionalProperties: false },
);

export function create(p: Static<typeof params>): Transformation {
  const mapping = new Map<string, readonly string[]>();
  for (const [from, to] of Object.entries(p.mapping)) mapping.set(from, typeof to === 'string' ? [to] : to);
  const keywordTargets = mapping.get(NULL_KEY);
  mapping.delete(NULL_KEY);
  return {
    apply: (doc, ctx) => mapFieldNames(doc, ctx, (name) => mapping.get(name), keywordTargets && keywordToFields(keywordTargets, ctx)),
  };
}
