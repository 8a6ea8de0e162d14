import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { Detection, DetectionItem, Scalar } from '../../../sigma/ast.js';
import { parseRuleText } from '../../../sigma/rule/index.js';

type Leaf = string;
type Shape = { and: (Shape | Leaf)[] } | { or: (Shape | Leaf)[] };

function shape(d: Detection | DetectionItem): Shape | Leaf {
  if (d.kind === 'item') return `${d.field ?? '*'}=${JSON.stringify(d.original)}`;
  return d.linking === 'and' ? { and: d.children.map(shape) } : { or: d.children.map(shape) };
}

const isScalar = (v: unknown): v is Scalar => v === null || ['string', 'number', 'boolean'].includes(typeof v);
const leaf = (field: string, values: readonly Scalar[]): Leaf => `${field}=${JSON.stringify(values)}`;

/** The reference reading of §2.2: mapping = AND of items, list = OR, scalars = keyword items. */
function expected(value: unknown): Shape {
  if (Array.isArray(value)) {
    if (value.every(isScalar)) return { and: [leaf('*', value)] };
    return { or: value.map((el) => (isScalar(el) ? { and: [leaf('*', [el])] } : expected(el))) };
  }
  if (typeof value === 'object' && value !== null) {
    return { and: Object.entries(value).map(([k, v]) => leaf(k, Array.isArray(v) ? (v as Scalar[]) : [v as Scalar])) };
  }
  return { and: [leaf('*', [value as Scalar])] };
}

const keywordScalar = fc.oneof(fc.string({ maxLength: 12 }), fc.integer({ min: -1e9, max: 1e9 }), fc.boolean());
const fieldScalar = fc.oneof(keywordScalar, fc.constant(null));
const fieldName = fc.stringMatching(/^[A-Za-z][A-Za-z0-9_.]{0,8}$/);
const mapping = fc.dictionary(fieldName, fc.oneof(fieldScalar, fc.array(keywordScalar, { maxLength: 4 })), {
  minKeys: 1,
  maxKeys: 4,
});
const definition = fc.oneof(
  mapping,
  fc.array(mapping, { minLength: 1, maxLength: 4 }),
  fc.array(keywordScalar, { minLength: 1, maxLength: 4 }),
  fc.array(fc.oneof(mapping, keywordScalar), { minLength: 1, maxLength: 4 }),
  keywordScalar,
);

describe('detection definitions (property)', () => {
  it('round-trip from YAML to the AND/OR structure of the reference reading', () => {
    fc.assert(
      fc.property(definition, (sel) => {
        const text = stringify({ title: 'T', logsource: { category: 'c' }, detection: { sel, condition: 'sel' } });
        const result = parseRuleText(text, 'gen.yml');
        expect(result.errors.map(String)).toEqual([]);
        const rule = result.documents[0];
        if (rule?.kind !== 'detection') throw new Error('expected a detection rule');
        const parsed = rule.detections.get('sel');
        expect(parsed && shape(parsed)).toEqual(expected(sel));
      }),
      { numRuns: 300, seed: 7 },
    );
  });
});
