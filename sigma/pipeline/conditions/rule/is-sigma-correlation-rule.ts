// The document is a correlation rule.
import Type from 'typebox';
import type { RulePredicate } from '../../types.js';

export const type = 'is_sigma_correlation_rule';

export const params = Type.Object({}, { additionalProperties: false });

export function create(): RulePredicate {
  return (doc) => doc.kind === 'correlation';
}
