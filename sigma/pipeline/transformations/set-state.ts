// Sets a per-rule pipeline state variable for later `processing_state` conditions.
import Type from 'typebox';
import type { Static } from 'typebox';
import type { Transformation } from '../types.js';

export const type = 'set_state';

export const params = Type.Object(
  { key: Type.String(), val: Type.Union([Type.String(), Type.Number(), Type.Boolean()]) },
  { additionalProperties: false },
);

export function create(p: Static<typeof params>): Transformation {
  return {
    apply: (doc, ctx) => {
      ctx.run.state.set(p.key, p.val);
      return doc;
    },
  };
}
