// The risk.* enrichments written out by hand are the bytes JSON.stringify gives.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RiskAnnotation } from '../../actors/index.js';
import { annotationText } from '../../streams/risk-stage.js';

const annotation: fc.Arbitrary<RiskAnnotation> = fc.record(
  {
    'risk.score': fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true })),
    'risk.objects': fc.array(fc.record({ type: fc.string(), value: fc.string({ unit: 'binary' }) }), { maxLength: 4 }),
  },
  { requiredKeys: ['risk.score'] },
);

describe('risk annotation text', () => {
  it('is JSON.stringify of the annotation', () => {
    fc.assert(
      fc.property(annotation, (a) => {
        expect(annotationText(a)).toBe(JSON.stringify(a));
      }),
    );
  });
});
