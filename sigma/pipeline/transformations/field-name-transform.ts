// Renames fields with a named function (pySigma takes a Python callable; YAML can only name one, as in
// rsigma). `mapping` entries override the function for single names; with `apply_keyword`, a `null` key
// there gives keyword items a field (no function can name a missing field).
import Type from 'typebox';
import type { Static } from 'typebox';
import { snakeCase } from '../snake-case.js';
import type { Transformation } from '../types.js';
import { mapFieldNames } from '../walk.js';
import { NULL_KEY } from '../yaml-source.js';
import { keywordToFields } from './keyword-field.js';

export const type = 'field_name_transform';

const FUNCTIONS: Readonly<Record<string, (name: string) => string>> = {
  lower: (s) => s.toLowerCase(),
  lowercase: (s) => s.toLowerCase(),
  upper: (s) => s.toUpperCase(),
  uppercase: (s) => s.toUpperCase(),
  // Python str.title(): each run of letters starts upper case, the rest is lower case.
  title: (s) => s.toLowerCase().replace(/(^|[^\p{L}])(\p{L})/gu, (_m, before: string, c: string) => before + c.toUpperCase()),
  snake_case: snakeCase,
};

export const params = Type.Object(
  {
    transform_func: Type.String(),
    mapping: Type.Optional(Type.Record(Type.String(), Type.String())),
    apply_keyword: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

export function create(p: Static<typeof params>): Transformation {
  const fn = Object.hasOwn(FUNCTIONS, p.transform_func) ? FUNCTIONS[p.transform_func] : undefined;
  if (!fn) throw new Error(`unknown transform_func '${p.transform_func}' (known: ${Object.keys(FUNCTIONS).join(', ')})`);
  const overrides = new Map(Object.entries(p.mapping ?? {}));
  const keywordTarget = p.apply_keyword === true ? overrides.get(NULL_KEY) : undefined;
  overrides.delete(NULL_KEY);
  return {
    apply: (doc, ctx) =>
      mapFieldNames(doc, ctx, (name) => [overrides.get(name) ?? fn(name)], keywordTarget === undefined ? undefined : keywordToFields([keywordTarget], ctx)),
  };
}
