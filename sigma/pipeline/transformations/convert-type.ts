// Numbers become strings, or plain strings become numbers (a non-numeric string fails the rule).
import Type from 'typebox';
import type { Static } from 'typebox';
import { literalString, renderPlain } from '../plain-string.js';
import type { Transformation } from '../types.js';
import { mapItemValues } from '../walk.js';

export const type = 'convert_type';

export const params = Type.Object(
  { target_type: Type.Union([Type.Literal('str'), Type.Literal('num')]) },
  { additionalProperties: false },
);

const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

export function create(p: Static<typeof params>): Transformation {
  return {
    apply: (doc, ctx) =>
      mapItemValues(doc, ctx, (v) => {
        if (p.target_type === 'str') return v.kind === 'number' ? literalString(v.raw) : undefined;
        if (v.kind !== 'string') return undefined;
        const text = renderPlain(v.parts);
        if (v.parts.some((part) => part.t !== 'lit') || !NUMBER.test(text)) {
          ctx.fail('pipeline_convert_type', `value '${text}' cannot be converted to a number`);
          return undefined;
        }
        return { kind: 'number', value: Number(text), raw: text };
      }),
  };
}
