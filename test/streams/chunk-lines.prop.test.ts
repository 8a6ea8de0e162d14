// `sigmad eval`'s chunk lines (issue 19 §3): decoding a chunk as a whole gives exactly the lines, rejections
// and pretty-printed start that LineSplitter frames, whatever mix of CRs, blank lines, byte-order marks,
// invalid UTF-8 and pretty-printed openers the bytes hold.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_LINE_BYTES, splitLines } from '../../protocol/index.js';
import { chunkLines } from '../../streams/detect/chunk-detect.js';

const encoder = new TextEncoder();

/** What LineSplitter says of the chunk, the way detectChunk reads it. */
function framed(bytes: Uint8Array, watchPretty: boolean) {
  const lines: string[] = [];
  let rejected = 0;
  for (const f of splitLines(bytes)) {
    if (!f.ok) rejected++;
    else if (watchPretty && ['{', '['].includes(f.line.trim())) {
      let at = 0;
      for (let n = 1; n < f.lineNo; n++) at = bytes.indexOf(0x0a, at) + 1;
      return { lines, rejected, prettyAt: at };
    } else lines.push(f.line);
  }
  return { lines, rejected };
}

const piece = fc.oneof(
  fc.constantFrom('{"a":1}', '{"b":"é€😀"}', 'plain text', '{', '[', ' { ', '\t', ' ', '\uFEFF', '\uFEFF{"c":2}', '\r', '\r\r', '\n', '\n', '\n').map((s) => encoder.encode(s)),
  fc.constantFrom([0xff], [0xc3], [0xe2, 0x82], [0xed, 0xa0, 0x80]).map((b) => Uint8Array.from(b)),
);

describe('chunkLines', () => {
  it('gives the lines, rejections and pretty-printed start LineSplitter frames', () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), fc.boolean(), (pieces, watchPretty) => {
        const bytes = Uint8Array.from(pieces.flatMap((p) => [...p]));
        expect(chunkLines(bytes, watchPretty)).toEqual(framed(bytes, watchPretty));
      }),
      { numRuns: 2_000 },
    );
  });

  it('rejects a line over the limit in a chunk longer than it', () => {
    const bytes = encoder.encode(`{"a":1}\n${'x'.repeat(MAX_LINE_BYTES + 1)}\r\n{"b":2}`);
    expect(chunkLines(bytes, true)).toEqual({ lines: ['{"a":1}', '{"b":2}'], rejected: 1 });
  });
});
