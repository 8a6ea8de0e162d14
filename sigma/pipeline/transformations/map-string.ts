// Replaces a string value whose plain rendering equals a key (modifier wildcards included: a `contains`
// value renders as `*x*`) by one value or an OR of values.
import Type from 'typebox';
import type { Static } from 'typebox';
import type { SigmaValue } from '../../ast.js';
import { plainString, renderPlain } from '../plain-string.js';
import type { Transformation } from '../types.js';
import { mapItemValues } from '../walk.js';

export const type = 'map_string';

export const params = Type.Object(
  { mapping: Type.Record(Type.String(), Type.Union([Type.String(), Type.Array(Type.String())])) },
  { additionalProperties: false },
);

export function create(p: Static<typeof params>): Transformation {
  const mapping = new Map<string, readonly SigmaValue[]>(
    Object.entries(p.mapping).map(([from, to]) => [from, (typeof to === 'string' ? [to] : to).map((t) => plainString(t))]),
  );
  return {
    apply: (doc, ctx) => mapItemValues(doc, ctx, (v) => (v.kind === 'string' ? mapping.get(renderPlain(v.parts)) : undefined)),
  };
}
