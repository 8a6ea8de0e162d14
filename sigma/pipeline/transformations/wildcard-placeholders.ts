// Replaces `%name%` placeholders by `*`.
import Type from 'typebox';
import type { Static } from 'typebox';
import type { StringPart } from '../../ast.js';
import type { Transformation } from '../types.js';
import { mapItemValues } from '../walk.js';
import { PlaceholderSelection, placeholderFilter } from './placeholder-selection.js';

export const type = 'wildcard_placeholders';

export const params = Type.Object(PlaceholderSelection, { additionalProperties: false });

export function create(p: Static<typeof params>): Transformation {
  const selected = placeholderFilter(p);
  return {
    apply: (doc, ctx) =>
      mapItemValues(doc, ctx, (v) => {
        if (v.kind !== 'string' || !v.parts.some((part) => part.t === 'ph' && selected(part.name))) return undefined;
        return { ...v, parts: v.parts.map((part): StringPart => (part.t === 'ph' && selected(part.name) ? { t: 'any' } : part)) };
      }),
  };
}
