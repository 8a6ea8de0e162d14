// Replaces all values of the selected items by one value, typed by its YAML type unless forced.
import Type from 'typebox';
import type { Static } from 'typebox';
import type { SigmaValue } from '../../ast.js';
import { scalarValue } from '../plain-string.js';
import type { Transformation } from '../types.js';
import { mapDetectionItems } from '../walk.js';

export const type = 'set_value';

export const params = Type.Object(
  {
    value: Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()]),
    force_type: Type.Optional(Type.Union([Type.Literal('str'), Type.Literal('num')])),
  },
  { additionalProperties: false },
);

export function create(p: Static<typeof params>): Transformation {
  const value = typed(p);
  return { apply: (doc, ctx) => mapDetectionItems(doc, ctx, (item) => ({ ...item, values: [value] })) };
}

function typed(p: Static<typeof params>): SigmaValue {
  if (p.force_type === 'str') return scalarValue(String(p.value));
  if (p.force_type === 'num') {
    const n = typeof p.value === 'number' ? p.value : Number(p.value);
    if (typeof p.value === 'boolean' || p.value === null || p.value === '' || !Number.isFinite(n)) {
      throw new Error(`value '${String(p.value)}' is not a number`);
    }
    return scalarValue(n);
  }
  return scalarValue(p.value);
}
