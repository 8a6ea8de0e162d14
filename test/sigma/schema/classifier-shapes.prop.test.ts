// The classifier tests only the signatures an event's own keys leave possible (a memo per key shape):
// that pruning must never change a classification. Checked against every signature tested in order,
// over events of repeating and changing shapes, flat and nested, with predicates of every kind.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SchemaSignature, SignaturePredicate } from '../../../protocol/index.js';
import { SchemaClassifier } from '../../../sigma/index.js';
import type { Classification } from '../../../sigma/index.js';

const FIELDS = ['a', 'b', 'a.b', 'c.d', 'x'];
const field = fc.constantFrom(...FIELDS);
const value = fc.constantFrom('v', 'V', '1', 2);

const predicate: fc.Arbitrary<SignaturePredicate> = fc.letrec<{ p: SignaturePredicate }>((tie) => ({
  p: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    field.map((f) => ({ field_present: f })),
    field.map((f) => ({ field_absent: f })),
    fc.array(field, { minLength: 1, maxLength: 2 }).map((fs) => ({ any_of: fs })),
    fc.record({ field, value }).map((equals) => ({ equals })),
    fc.record({ field, value: fc.constant('^v') }).map((matches) => ({ matches })),
    fc.record({ field, value: fc.constant(1) }).map((gt) => ({ gt })),
    fc.record({ field, values: fc.constant<(string | number)[]>(['v', '2']) }).map((p) => ({ in: p })),
    fc.record({ left: field, right: field }).map((p) => ({ field_equals_field: p })),
    tie('p').map((p) => ({ not: p })),
    fc.array(tie('p'), { minLength: 1, maxLength: 2 }).map((ps) => ({ any: ps })),
    fc.array(tie('p'), { minLength: 1, maxLength: 2 }).map((ps) => ({ all: ps })),
  ),
})).p;

const signature: fc.Arbitrary<SchemaSignature> = fc.record({
  name: fc.constantFrom('s1', 's2', 's3'),
  specificity: fc.integer({ min: 1, max: 3 }),
  match: fc.array(predicate, { minLength: 1, maxLength: 3 }),
});

const leaf = fc.oneof(value, fc.constant(null), fc.constant({}), fc.constant({ b: 'v' }), fc.constant({ d: 1 }), fc.constant([{ b: 'v' }, 2]));
const event = fc.dictionary(fc.constantFrom('a', 'b', 'c', 'a.b', 'c.d', 'x'), leaf, { maxKeys: 4 });

/** Every signature tested, most specific first (the classifier's own order), as §13.2 states it. */
function reference(classifier: SchemaClassifier, e: Record<string, unknown>): Classification {
  const sigs = classifier.signatures;
  for (let i = 0; i < sigs.length; i++) {
    const s = sigs[i];
    if (s === undefined || !s.test(e)) continue;
    const ambiguous = sigs.some((o, j) => j > i && o.specificity === s.specificity && o.name !== s.name && o.test(e));
    return { schema: s.name, routesAs: s.routesAs, ambiguous };
  }
  return { schema: undefined, routesAs: undefined, ambiguous: false };
}

describe('schema classification per key shape', () => {
  it('classifies as testing every signature would, whatever shapes come and repeat (property)', () => {
    fc.assert(
      fc.property(fc.array(signature, { maxLength: 5 }), fc.array(event, { minLength: 1, maxLength: 6 }), fc.array(fc.nat(5), { maxLength: 20 }), (signatures, events, order) => {
        const classifier = new SchemaClassifier(signatures);
        for (const k of [...order, ...events.keys()]) {
          const e = events[k % events.length] as Record<string, unknown>;
          expect(classifier.classify(e)).toEqual(reference(classifier, e));
        }
      }),
    );
  });
});
