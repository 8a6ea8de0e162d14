// External placeholder values from a file: disabled (reading files is the caller's job, not a rule's).
import Type from 'typebox';
import type { Static } from 'typebox';
import type { Transformation } from '../types.js';
import { PlaceholderSelection } from './placeholder-selection.js';
import { ExternalSource, unsupportedPlaceholders } from './unsupported-placeholders.js';

export const type = 'file_placeholders';

export const params = Type.Object({ path: Type.String(), ...ExternalSource, ...PlaceholderSelection }, { additionalProperties: false });

export function create(p: Static<typeof params>): Transformation {
  return unsupportedPlaceholders(type, 'loads values from an external source, which is not enabled', p);
}
