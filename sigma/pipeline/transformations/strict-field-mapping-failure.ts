// Fails the rule when a detection item still uses a field name no earlier mapping produced.
import Type from 'typebox';
import type { Transformation } from '../types.js';
import { mapDetectionItems } from '../walk.js';

export const type = 'strict_field_mapping_failure';

export const params = Type.Object({}, { additionalProperties: false });

export function create(): Transformation {
  return {
    apply: (doc, ctx) => {
      const unmapped = new Set<string>();
      mapDetectionItems(doc, ctx, (item) => {
        if (item.field !== null && !ctx.run.fieldApplied.has(item.field)) unmapped.add(item.field);
        return undefined;
      });
      if (unmapped.size > 0) ctx.fail('pipeline_unmapped_fields', `fields not covered by a field mapping: ${[...unmapped].join(', ')}`);
      return doc;
    },
  };
}
