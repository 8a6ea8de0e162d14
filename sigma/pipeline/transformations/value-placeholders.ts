// Replaces `%name%` placeholders by the pipeline variable's values (each parsed as a Sigma string,
// alternatives OR-ed). Variables are read from the run, so they can be replaced after parsing.
import Type from 'typebox';
import type { Static } from 'typebox';
import type { SigmaValue, StringPart } from '../../ast.js';
import { normaliseParts, parseSigmaString } from '../../value/index.js';
import type { Transformation } from '../types.js';
import { mapItemValues } from '../walk.js';
import { PlaceholderSelection, placeholderFilter } from './placeholder-selection.js';

export const type = 'value_placeholders';

export const params = Type.Object(PlaceholderSelection, { additionalProperties: false });

export function create(p: Static<typeof params>): Transformation {
  const selected = placeholderFilter(p);
  return {
    apply: (doc, ctx) =>
      mapItemValues(doc, ctx, (v): readonly SigmaValue[] | undefined => {
        if (v.kind !== 'string' || !v.parts.some((part) => part.t === 'ph' && selected(part.name))) return undefined;
        // Cartesian product over the placeholders of one value.
        let variants: StringPart[][] = [[]];
        for (const part of v.parts) {
          if (part.t !== 'ph' || !selected(part.name)) {
            variants = variants.map((parts) => [...parts, part]);
            continue;
          }
          const value = ctx.run.vars[part.name];
          if (value === undefined) {
            ctx.fail('pipeline_unknown_variable', `placeholder '%${part.name}%' has no pipeline variable`);
            return undefined;
          }
          const options = (Array.isArray(value) ? value : [value]).map((o: string | number) => parseSigmaString(String(o)));
          variants = variants.flatMap((parts) => options.map((o) => [...parts, ...o]));
        }
        return variants.map((parts) => ({ ...v, parts: normaliseParts(parts) }));
      }),
  };
}
