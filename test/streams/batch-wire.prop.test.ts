// A detected batch through the detection worker's wire form (joined texts, transferred columns) and a
// structured clone, as `postMessage` carries it: the same batch, texts with any code points included.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fromWire, toWire } from '../../streams/detect/batch-wire.js';
import type { DetectedBatch } from '../../streams/index.js';

const batch: fc.Arbitrary<DetectedBatch> = fc
  .array(fc.record({ text: fc.oneof(fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' })), line: fc.nat(1000), rule: fc.nat(5000) }), { maxLength: 40 })
  .chain((results) =>
    fc.record({
      parseErrors: fc.uniqueArray(fc.nat(1000)).map((xs) => xs.sort((a, b) => a - b)),
      texts: fc.constant(results.map((r) => r.text)),
      textLines: fc.constant(Int32Array.from(results.map((r) => r.line).sort((a, b) => a - b))),
      textRules: fc.constant(Int32Array.from(results.map((r) => r.rule))),
      correlate: fc.constant([]),
      rulesPrunedByLogsource: fc.nat(),
      eventsWithoutLogsource: fc.nat(),
      seconds: fc.double({ min: 0, max: 10, noNaN: true }),
    }),
  );

describe('detected batch wire form', () => {
  it('comes out of a structured clone as the batch that went in', () => {
    fc.assert(
      fc.property(batch, (b) => {
        const copy: DetectedBatch = { ...b, textLines: b.textLines.slice(), textRules: b.textRules.slice() };
        const { wire, transfer } = toWire(copy);
        const received = fromWire(structuredClone(wire, { transfer: transfer as ArrayBuffer[] }));
        expect(received).toEqual(b);
        // Transferred: the worker keeps no copy of the columns.
        expect(copy.textLines.length).toBe(0);
      }),
      { numRuns: 200 },
    );
  });
});
