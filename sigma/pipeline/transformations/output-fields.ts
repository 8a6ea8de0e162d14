// The rule's `fields` list (output columns) as add/remove/set transformations see it.
import type { AnyRule } from '../types.js';

export function withFields(doc: AnyRule, fields: readonly string[]): AnyRule {
  return { ...doc, fields };
}

export function asList(field: string | readonly string[]): readonly string[] {
  return typeof field === 'string' ? [field] : field;
}
