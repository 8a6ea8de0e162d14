// Fails the rule when any detection item matches the item's detection-item/field-name conditions.
import Type from 'typebox';
import type { Static } from 'typebox';
import type { Transformation } from '../types.js';
import { mapDetectionItems } from '../walk.js';

export const type = 'detection_item_failure';

export const params = Type.Object({ message: Type.String() }, { additionalProperties: false });

export function create(p: Static<typeof params>): Transformation {
  return {
    apply: (doc, ctx) => {
      let hit = false;
      mapDetectionItems(doc, ctx, () => {
        hit = true;
        return undefined;
      });
      if (hit) ctx.fail('pipeline_detection_item_failure', p.message);
      return doc;
    },
  };
}
