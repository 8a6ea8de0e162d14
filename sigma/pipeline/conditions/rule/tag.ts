// The rule carries exactly this tag.
import Type from 'typebox';
import type { Static } from 'typebox';
import type { RulePredicate } from '../../types.js';

export const type = 'tag';

export const params = Type.Object({ tag: Type.String() }, { additionalProperties: false });

export function create(p: Static<typeof params>): RulePredicate {
  return (doc) => doc.tags.includes(p.tag);
}
