// Splits Sysmon-style `Hashes` values (`SHA1=…`, `SHA1|…`, or bare hashes classified by length) into an
// OR of items, one per `<field_prefix><ALGO>` field holding that algorithm's hashes. As in pySigma, the
// text after the separator is kept as a Sigma string (a `contains` value keeps its trailing `*`).
import Type from 'typebox';
import type { Static } from 'typebox';
import type { DetectionItem } from '../../ast.js';
import { plainString, renderPlain } from '../plain-string.js';
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

function split(value: string): [string | undefined, string] {
  const parts = value.split(value.includes('|') ? '|' : '=');
  const [algo = '', hash = ''] = parts;
  if (parts.length === 2) return [algo.replace(/^\*+/, '').toUpperCase(), hash];
  return [BY_LENGTH[value.length], value];
}

export function create(p: Static<typeof params>): Transformation {
  const valid = new Set(p.valid_hash_algos.map((a) => a.toUpperCase()));
  const fields = new Set(p.field_to_parse === undefined ? ['Hashes', 'Hash'] : typeof p.field_to_parse === 'string' ? [p.field_to_parse] : p.field_to_parse);
  const prefix = p.field_prefix ?? '';
  return {
    apply: (doc, ctx) =>
      mapDetectionItems(doc, ctx, (item) => {
        if (item.field === null || !fields.has(item.field)) return undefined;
        const strings = item.values.flatMap((v) => (v.kind === 'string' ? [renderPlain(v.parts)] : []));
        if (strings.length !== item.values.length) return undefined;
        const byField = new Map<string, string[]>();
        for (const s of strings) {
          const [algo, hash] = split(s);
          if (algo === undefined || !valid.has(algo)) continue;
          const field = p.drop_algo_prefix === true ? prefix : prefix + algo;
          byField.set(field, [...(byField.get(field) ?? []), hash]);
        }
        if (byField.size === 0) {
          ctx.fail('pipeline_hashes_fields', `no valid hash algorithm found in '${item.field}' (valid: ${[...valid].join(', ')})`);
          return undefined;
        }
        const children = [...byField].map(
          ([field, hashes]): DetectionItem => ({ ...item, field, modifiers: [], original: hashes, values: hashes.map((h) => plainString(h)), linking: 'or', negated: false }),
        );
        return children.length === 1 ? children[0] : { kind: 'detection', linking: 'or', children };
      }),
  };
}
