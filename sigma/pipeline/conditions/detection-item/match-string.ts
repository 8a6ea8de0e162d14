// A string value's plain rendering matches a regex at its start (Python `re.match`); non-strings never do.
import Type from 'typebox';
import type { Static } from 'typebox';
import { renderPlain } from '../../plain-string.js';
import { compileMatch } from '../../python-regex.js';
import type { ItemPredicate } from '../../types.js';
import { Cond, quantify } from './value-quantifier.js';

export const type = 'match_string';

export const params = Type.Object(
  { pattern: Type.String(), cond: Cond, negate: Type.Optional(Type.Boolean()) },
  { additionalProperties: false },
);

export function create(p: Static<typeof params>): ItemPredicate {
  const re = compileMatch(p.pattern);
  const negate = p.negate ?? false;
  return (item) => quantify(p.cond, item, (v) => v.kind === 'string' && re.test(renderPlain(v.parts)) !== negate);
}
