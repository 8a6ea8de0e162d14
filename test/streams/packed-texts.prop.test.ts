import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { packedTextList, PackedTextWriter } from '../../streams/index.js';

describe('PackedTextWriter: a batch of detection texts as one UTF-8 buffer', () => {
  it('holds each text as Buffer.from encodes it, followed by a line break, whatever buffer it started with', () => {
    const text = fc.oneof(fc.string({ unit: 'binary', maxLength: 40 }), fc.string({ unit: fc.constantFrom('a', '\n', '\ud800', '€', '𝄞'), maxLength: 3000 }));
    fc.assert(
      fc.property(fc.array(text, { maxLength: 30 }), fc.nat(10_000), (texts, hint) => {
        const writer = new PackedTextWriter(hint);
        for (const t of texts) writer.push(t);
        const packed = writer.done();
        expect(Buffer.from(packed.bytes).equals(Buffer.concat(texts.map((t) => Buffer.from(`${t}\n`, 'utf8'))))).toBe(true);
        expect(packed.ends).toHaveLength(texts.length);
        expect(packedTextList(packed)).toEqual(texts.map((t) => Buffer.from(t, 'utf8').toString('utf8')));
      }),
    );
  });
});
