import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Scalar, SigmaValue } from '../../../sigma/ast.js';
import { SigmaError } from '../../../sigma/errors.js';
import { buildDetectionItem, MODIFIER_NAMES } from '../../../sigma/value/index.js';

const FINAL_KINDS = new Set(['string', 'number', 'bool', 'null', 'regex', 'cidr', 'compare', 'timepart', 'exists', 'fieldref', 'expansion']);

function wellFormed(v: SigmaValue): boolean {
  if (!FINAL_KINDS.has(v.kind) || 'source' in v) return false;
  if (v.kind === 'expansion') return v.alternatives.length > 1 && v.alternatives.every((a) => a.kind !== 'expansion' && wellFormed(a));
  return true;
}

const scalar: fc.Arbitrary<Scalar> = fc.oneof(
  fc.string({ unit: fc.constantFrom('a', '-', '/', ' ', '*', '?', '\\', '%', '1', '.', ':') , maxLength: 10 }),
  fc.constantFrom('10.0.0.0/8', 'fe80::1', 'yes', 'IEX', '%x%'),
  fc.integer({ min: -5, max: 70 }),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
);

describe('buildDetectionItem properties', () => {
  it('any modifier chain over any values either builds well-formed values or throws SigmaError', () => {
    fc.assert(
      fc.property(
        fc.option(fc.constantFrom('F', '@timestamp'), { nil: null }),
        fc.array(fc.constantFrom(...MODIFIER_NAMES, 'not', 'foo'), { maxLength: 4 }),
        fc.array(scalar, { maxLength: 3 }),
        (field, modifiers, values) => {
          try {
            const { item } = buildDetectionItem(field, modifiers, values);
            expect(item.values).toHaveLength(values.length);
            expect(item.values.every(wellFormed)).toBe(true);
            expect(item.original).toBe(values);
            expect(item.linking).toBe(modifiers.includes('all') ? 'and' : 'or');
            expect(item.negated).toBe(modifiers.includes('neq'));
          } catch (e) {
            expect(e).toBeInstanceOf(SigmaError);
          }
        },
      ),
      { numRuns: 2000 },
    );
  });
});
