// External placeholder values fetched over HTTP: disabled (security-sensitive, opt-in only).
import Type from 'typebox';
import type { Static } from 'typebox';
import type { Transformation } from '../types.js';
import { PlaceholderSelection } from './placeholder-selection.js';
import { ExternalSource, unsupportedPlaceholders } from './unsupported-placeholders.js';

export const type = 'http_placeholders';

export const params = Type.Object(
  {
    url: Type.String(),
    method: Type.Optional(Type.String()),
    headers: Type.Optional(Type.Record(Type.String(), Type.String())),
    body: Type.Optional(Type.String()),
    timeout: Type.Optional(Type.Number()),
    ...ExternalSource,
    ...PlaceholderSelection,
  },
  { additionalProperties: false },
);

export function create(p: Static<typeof params>): Transformation {
  return unsupportedPlaceholders(type, 'loads values from an external source, which is not enabled', p);
}
