// Converter-only (it inserts raw backend query text): unsupported in an evaluator.
import Type from 'typebox';
import type { Static } from 'typebox';
import type { Transformation } from '../types.js';
import { PlaceholderSelection } from './placeholder-selection.js';
import { unsupportedPlaceholders } from './unsupported-placeholders.js';

export const type = 'query_expression_placeholders';

export const params = Type.Object(
  { expression: Type.String(), mapping: Type.Optional(Type.Record(Type.String(), Type.String())), ...PlaceholderSelection },
  { additionalProperties: false },
);

export function create(p: Static<typeof params>): Transformation {
  return unsupportedPlaceholders(type, 'produces backend query text, which an evaluator cannot run', p);
}
