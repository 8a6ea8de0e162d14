// Removes the selected detection items; emptied detections become absent condition nodes.
import Type from 'typebox';
import type { Transformation } from '../types.js';
import { mapDetectionItems } from '../walk.js';

export const type = 'drop_detection_item';

export const params = Type.Object({}, { additionalProperties: false });

export function create(): Transformation {
  return { apply: (doc, ctx) => mapDetectionItems(doc, ctx, () => null) };
}
