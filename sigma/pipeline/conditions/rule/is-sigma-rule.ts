// The document is a detection rule.
import Type from 'typebox';
import type { RulePredicate } from '../../types.js';

export const type = 'is_sigma_rule';

export const params = Type.Object({}, { additionalProperties: false });

export function create(): RulePredicate {
  return (doc) => doc.kind === 'detection';
}
