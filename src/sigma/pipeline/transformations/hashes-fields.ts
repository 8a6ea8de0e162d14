// Splits Sysmon-style `Hashes` values (`SHA1=…`, `SHA1|…`, several joined by commas, or bare hashes
// classified by length) into an OR of items on `<field_prefix><ALGO>` fields.
import Type from 'typebox';
import type { Static } from 'typebox';
import type { DetectionItem } from '../../ast.js';
import { literalString, renderPlain } from '../plain-string.js';
import type { Transformation } from '../types.js';
import { mapDetectionItems } from '../walk.js';

export const type = 'hashes_fields';

export const params = Type.Object(
  {
    valid_hash_algos: Type.Array(Type.String(), { minItems: 1 }),
    field_prefix: Type.Optional(Type.String()),
    drop_algo_prefix: Type.Optional(Type.Boolean()),
    field_to_parse: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())])),
  },
  { additionalProperties: false },
);

const BY_LENGTH: Readonly<Record<number, string>> = { 32: 'MD5', 40: 'SHA1', 64: 'SHA256', 128: 'SHA512' };

export function create(p: Static<typeof params>): Transformation {
  const valid = new Set(p.valid_hash_algos.map((a) => a.toUpperCase()));
  const fields = new Set(p.field_to_parse === undefined ? ['Hashes', 'Hash'] : typeof p.field_to_parse === 'string' ? [p.field_to_parse] : p.field_to_parse);
  const prefix = p.field_prefix ?? '';
  return {
    apply: (doc, ctx) =>
      mapDetectionItems(doc, ctx, (item) => {
        if (item.field === null || !fields.has(item.field)) return undefined;
        const children: DetectionItem[] = [];
        for (const v of item.values) {
          if (v.kind !== 'string') continue;
          // Modifier wildcards around the list (`contains`) are not part of any hash.
          for (const entry of renderPlain(v.parts).replace(/^\*+|\*+$/g, '').split(',')) {
            const [algo, hash] = split(entry.trim());
            if (algo === undefined || !valid.has(algo) || hash === '') continue;
            const field = p.drop_algo_prefix === true ? prefix : prefix + algo;
            children.push({ ...item, field, modifiers: [], original: [hash], values: [literalString(hash)] });
          }
        }
        if (children.length === 0) {
          ctx.fail('pipeline_hashes_fields', `no valid hash algorithm found in the values of '${item.field}'`);
          return undefined;
        }
        return children.length === 1 ? children[0] : { kind: 'detection', linking: 'or', children };
      }),
  };
}

function split(entry: string): [string | undefined, string] {
  const m = /^([A-Za-z0-9]+)[=|](.*)$/.exec(entry);
  if (m) return [m[1]?.toUpperCase(), m[2] ?? ''];
  return [BY_LENGTH[entry.length], entry];
}
