// Sets a custom rule attribute (engine knobs such as `rsigma.suppress`).
import Type from 'typebox';
import type { Static } from 'typebox';
import type { Transformation } from '../types.js';

export const type = 'set_custom_attribute';

export const params = Type.Object({ attribute: Type.String(), value: Type.Unknown() }, { additionalProperties: false });

export function create(p: Static<typeof params>): Transformation {
  return { apply: (doc) => ({ ...doc, custom: { ...doc.custom, [p.attribute]: p.value } }) };
}
