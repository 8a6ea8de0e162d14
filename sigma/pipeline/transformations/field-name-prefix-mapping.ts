// Replaces the first matching prefix (mapping order); a list replacement gives an OR of copies.
import Type from 'typebox';
import type { Static } from 'typebox';
import type { Transformation } from '../types.js';
import { mapFieldNames } from '../walk.js';
import { NULL_KEY } from '../yaml-source.js';

export const type = 'field_name_prefix_mapping';

export const params = Type.Object(
  { mapping: Type.Record(Type.String(), Type.Union([Type.String(), Type.Array(Type.String())])) },
  { additionalProperties: false },
);

export function create(p: Static<typeof params>): Transformation {
  const entries = Object.entries(p.mapping).map(([prefix, to]) => ({ prefix, to: typeof to === 'string' ? [to] : to }));
  if (entries.some((e) => e.prefix === NULL_KEY)) throw new Error('a null key is not allowed in a prefix mapping');
  const rename = (name: string): readonly string[] | undefined => {
    const hit = entries.find((e) => name.startsWith(e.prefix));
    return hit?.to.map((r) => r + name.slice(hit.prefix.length));
  };
  return { apply: (doc, ctx) => mapFieldNames(doc, ctx, rename) };
}
