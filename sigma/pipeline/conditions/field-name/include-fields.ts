// The field name is listed (plain) or matches one of the regexes at its start (`mode: re`).
// Keyword items have no field name and never match.
import Type from 'typebox';
import type { Static } from 'typebox';
import { compileMatch } from '../../python-regex.js';
import type { FieldPredicate } from '../../types.js';

export const type = 'include_fields';

export const params = Type.Object(
  { fields: Type.Array(Type.String()), mode: Type.Optional(Type.Union([Type.Literal('plain'), Type.Literal('re')])) },
  { additionalProperties: false },
);

export function fieldListed(p: Static<typeof params>): (name: string | null) => boolean {
  if (p.mode === 're') {
    const res = p.fields.map((f) => compileMatch(f));
    return (name) => name !== null && res.some((r) => r.test(name));
  }
  const set = new Set(p.fields);
  return (name) => name !== null && set.has(name);
}

export function create(p: Static<typeof params>): FieldPredicate {
  const listed = fieldListed(p);
  return { field: (name) => listed(name) };
}
