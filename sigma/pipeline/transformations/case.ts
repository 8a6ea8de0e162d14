// Changes the case of the literal parts of string values.
import Type from 'typebox';
import type { Static } from 'typebox';
import type { StringPart } from '../../ast.js';
import { snakeCase } from '../snake-case.js';
import type { Transformation } from '../types.js';
import { mapItemValues } from '../walk.js';

export const type = 'case';

export const params = Type.Object(
  { method: Type.Optional(Type.Union([Type.Literal('lower'), Type.Literal('upper'), Type.Literal('snake_case')])) },
  { additionalProperties: false },
);

const METHODS = {
  lower: (s: string) => s.toLowerCase(),
  upper: (s: string) => s.toUpperCase(),
  snake_case: snakeCase,
} as const;

export function create(p: Static<typeof params>): Transformation {
  const fn = METHODS[p.method ?? 'lower'];
  return {
    apply: (doc, ctx) =>
      mapItemValues(doc, ctx, (v) => {
        if (v.kind !== 'string') return undefined;
        let changed = false;
        const parts = v.parts.map((part): StringPart => {
          if (part.t !== 'lit') return part;
          const s = fn(part.s);
          if (s === part.s) return part;
          changed = true;
          return { t: 'lit', s };
        });
        return changed ? { ...v, parts } : undefined;
      }),
  };
}
