// The HTTP ingest splitter frames bodies on their bytes (issue 19 §4): it must frame every body exactly
// as the shared string splitter does (lines, rejected lines and their reports, the 413 cut-off).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { splitIngestLines } from '../../http/ingest-lines.js';
import { ByteLines, joinLines, lineTexts, splitLines } from '../../protocol/index.js';
import type { RejectedLine } from '../../protocol/index.js';

const encode = (s: string): number[] => [...new TextEncoder().encode(s)];

/** What ingest framed before it kept bytes: the shared splitter's frames, up to the first oversized line. */
function byStrings(body: Uint8Array, maxLineBytes: number): { lines: string[]; rejected: RejectedLine[]; tooLong: boolean } {
  const lines: string[] = [];
  const rejected: RejectedLine[] = [];
  for (const frame of splitLines(body, { maxLineBytes })) {
    if (frame.ok) lines.push(frame.line);
    else {
      rejected.push(frame);
      if (frame.reason === 'too_long') return { lines, rejected, tooLong: true };
    }
  }
  return { lines, rejected, tooLong: false };
}

/** Body pieces that stress the framing: terminators, blanks, BOMs, multi-byte and invalid UTF-8, long lines. */
const piece = fc.oneof(
  fc.constantFrom('\n', '\r\n', '\r', ' ', '\t', '\f', '\v', '\ufeff', '{"a":1}', 'é', '€', '😀', '\u00a0', '\u2028').map(encode),
  fc.string({ unit: 'grapheme', maxLength: 12 }).map(encode),
  fc.constantFrom([0xff], [0xfe, 0xff], [0x80], [0xc3], [0xe2, 0x82], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xc0, 0xaf]),
  // Past the 4,096 bytes of a rejected line's head, cut inside a character.
  fc.constantFrom('é'.repeat(2_100), 'x'.repeat(4_095) + '€').map(encode),
);
const body = fc.array(piece, { maxLength: 30 }).map((ps) => new Uint8Array(ps.flat()));

describe('byte line splitter', () => {
  it('frames every body as the string splitter does', () => {
    fc.assert(
      fc.property(body, fc.oneof(fc.integer({ min: 1, max: 40 }), fc.constant(1_048_576)), (bytes, max) => {
        const split = splitIngestLines(bytes, max);
        expect({ lines: split.lines.texts(), rejected: split.rejected, tooLong: split.tooLong }).toEqual(byStrings(bytes, max));
      }),
      { numRuns: 500 },
    );
  });

  it('keeps each line the same through slicing, packing and joining (what moves to a worker)', () => {
    fc.assert(
      fc.property(fc.array(body, { minLength: 1, maxLength: 4 }), fc.nat(), fc.nat(), (bodies, a, b) => {
        const parts = bodies.map((x) => splitIngestLines(x).lines);
        const texts = parts.flatMap((p) => p.texts());
        const joined = joinLines(parts);
        expect(lineTexts(joined)).toEqual(texts);
        const { bytes, bounds } = ByteLines.join(parts).packed();
        expect(new ByteLines(bytes, bounds).texts()).toEqual(texts);
        const first = parts[0] as ByteLines;
        const [from, to] = [a % (first.length + 1), b % (first.length + 2)];
        expect(first.slice(from, to).texts()).toEqual(first.texts().slice(from, to));
        expect(first.slice(from, to).packed().bytes.buffer.byteLength).toBeLessThanOrEqual(bytes.byteLength);
      }),
    );
  });

  it('mixes string and byte units into strings', () => {
    const bytes = splitIngestLines(new Uint8Array(encode('{"b":1}\r\n\n{"c":2}'))).lines;
    expect(joinLines([['{"a":0}'], bytes])).toEqual(['{"a":0}', '{"b":1}', '{"c":2}']);
  });
});
