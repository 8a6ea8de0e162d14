// Placeholder sources sigmad does not offer (backend query fragments, external lookups) fail every rule
// that still holds a placeholder they select, with a message saying why.
import Type from 'typebox';
import type { Transformation } from '../types.js';
import { mapDetectionItems } from '../walk.js';
import { placeholderFilter, selectedPlaceholder } from './placeholder-selection.js';

/** Parameters every external placeholder source shares (besides its own source parameters). */
export const ExternalSource = {
  format: Type.Optional(Type.String()),
  filter: Type.Optional(Type.String()),
  csv_column: Type.Optional(Type.Union([Type.String(), Type.Integer()])),
};

export function unsupportedPlaceholders(
  type: string,
  reason: string,
  p: { include?: readonly string[]; exclude?: readonly string[] },
): Transformation {
  const selected = placeholderFilter(p);
  return {
    apply: (doc, ctx) =>
      mapDetectionItems(doc, ctx, (item) => {
        const name = selectedPlaceholder(item, selected);
        if (name !== undefined) ctx.fail('pipeline_unsupported_placeholder', `placeholder '%${name}%' cannot be resolved: ${type} ${reason}`);
        return undefined;
      }),
  };
}
