// For each string value matching a regex with named groups (at its start), an AND of items
// `<field_prefix>.<group>: <captured>`; the alternatives from several values are OR-ed. Unmatched values
// are dropped unless `preserve_unmatched` keeps them on the original item.
import Type from 'typebox';
import type { Static } from 'typebox';
import type { Detection, DetectionItem, SigmaValue } from '../../ast.js';
import { literalString, renderPlain } from '../plain-string.js';
import { compileMatch } from '../python-regex.js';
import type { Transformation } from '../types.js';
import { mapDetectionItems } from '../walk.js';

export const type = 'extract_fields';

export const params = Type.Object(
  { regex: Type.String(), field_prefix: Type.Optional(Type.String()), preserve_unmatched: Type.Optional(Type.Boolean()) },
  { additionalProperties: false },
);

const NUMERIC = /^-?(0|[1-9]\d*)(\.\d+)?$/;

/** Captured text typed like YAML would: empty/null/none → null, numbers without leading zeros → numbers. */
function typedValue(text: string): SigmaValue {
  if (text === '' || /^(null|none)$/i.test(text)) return { kind: 'null' };
  if (NUMERIC.test(text)) return { kind: 'number', value: Number(text), raw: text };
  return literalString(text);
}

export function create(p: Static<typeof params>): Transformation {
  const re = compileMatch(p.regex);
  const name = (group: string): string => (p.field_prefix ? `${p.field_prefix}.${group}` : group);
  return {
    apply: (doc, ctx) =>
      mapDetectionItems(doc, ctx, (item) => {
        const alternatives: (Detection | DetectionItem)[] = [];
        const unmatched: SigmaValue[] = [];
        for (const v of item.values) {
          const m = v.kind === 'string' ? re.exec(renderPlain(v.parts)) : null;
          const groups = Object.entries(m?.groups ?? {}).filter((g): g is [string, string] => g[1] !== undefined);
          if (groups.length === 0) {
            unmatched.push(v);
            continue;
          }
          const items = groups.map(([g, text]): DetectionItem => {
            const value = typedValue(text);
            return { ...item, field: name(g), modifiers: [], original: [text], values: [value], linking: 'or' };
          });
          alternatives.push(items.length === 1 && items[0] ? items[0] : { kind: 'detection', linking: 'and', children: items });
        }
        if (p.preserve_unmatched === true && unmatched.length > 0) alternatives.push({ ...item, values: unmatched });
        if (alternatives.length === 0) return null;
        if (alternatives.length === 1) return alternatives[0];
        return { kind: 'detection', linking: 'or', children: alternatives };
      }),
  };
}
