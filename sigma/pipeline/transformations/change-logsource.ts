// Replaces the logsource with exactly the given attributes (the others become unset).
import Type from 'typebox';
import type { Static } from 'typebox';
import type { Logsource } from '../../ast.js';
import type { Transformation } from '../types.js';

export const type = 'change_logsource';

export const params = Type.Object(
  { category: Type.Optional(Type.String()), product: Type.Optional(Type.String()), service: Type.Optional(Type.String()) },
  { additionalProperties: false },
);

export function create(p: Static<typeof params>): Transformation {
  const logsource: Logsource = {
    ...(p.category !== undefined ? { category: p.category } : {}),
    ...(p.product !== undefined ? { product: p.product } : {}),
    ...(p.service !== undefined ? { service: p.service } : {}),
  };
  return { apply: (doc) => (doc.kind === 'detection' ? { ...doc, logsource } : doc) };
}
