// Fails the rule with a message (normally behind rule conditions).
import Type from 'typebox';
import type { Static } from 'typebox';
import type { Transformation } from '../types.js';

export const type = 'rule_failure';

export const params = Type.Object({ message: Type.String() }, { additionalProperties: false });

export function create(p: Static<typeof params>): Transformation {
  return {
    apply: (doc, ctx) => {
      ctx.fail('pipeline_rule_failure', p.message);
      return doc;
    },
  };
}
