// Renames fields, 1:n as an OR of copies. The YAML `null` key gives keyword items a field; their
// string values get `*` at both ends so they keep substring semantics.
import Type from 'typebox';
import type { Static } from 'typebox';
import type { DetectionItem, SigmaValue } from '../../ast.js';
import type { Transformation } from '../types.js';
import { mapFieldNames, recordFieldNames } from '../walk.js';
import { NULL_KEY } from '../yaml-source.js';

export const type = 'field_name_mapping';

export const params = Type.Object(
  { mapping: Type.Record(Type.String(), Type.Union([Type.String(), Type.Array(Type.String())])) },
  { additionalProperties: false },
);

export function create(p: Static<typeof params>): Transformation {
  const mapping = new Map<string, readonly string[]>();
  for (const [from, to] of Object.entries(p.mapping)) mapping.set(from, typeof to === 'string' ? [to] : to);
  const keywordTargets = mapping.get(NULL_KEY);
  mapping.delete(NULL_KEY);
  return {
    apply: (doc, ctx) =>
      mapFieldNames(
        doc,
        ctx,
        (name) => mapping.get(name),
        keywordTargets &&
          ((item) => {
            recordFieldNames(ctx, keywordTargets);
            const values = item.values.map(substring);
            const copies: DetectionItem[] = keywordTargets.map((field) => ({ ...item, field, values }));
            return copies.length === 1 ? copies[0] : { kind: 'detection', linking: 'or', children: copies };
          }),
      ),
  };
}

function substring(v: SigmaValue): SigmaValue {
  if (v.kind === 'expansion') return { ...v, alternatives: v.alternatives.map(substring) };
  if (v.kind !== 'string') return v;
  const parts = [...v.parts];
  if (parts[0]?.t !== 'any') parts.unshift({ t: 'any' });
  if (parts[parts.length - 1]?.t !== 'any') parts.push({ t: 'any' });
  return { ...v, parts };
}
