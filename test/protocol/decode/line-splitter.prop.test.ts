import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LineSplitter, type LineFrame } from '../../../protocol/decode/index.js';

const MAX = 12;
/** Smaller than some oversized lines, so heads are cut (inside characters too). */
const HEAD = 9;
const encoder = new TextEncoder();

/** Lines drawn from characters of every UTF-8 width plus CR, spaces and tabs; some exceed the limit. */
const lineArb = fc.oneof(
  fc.string({ unit: fc.constantFrom('a', 'b', ' ', '\t', '\r', 'é', '€', '🌍', '{', '"'), maxLength: 10 }),
  fc.string({ unit: fc.constantFrom('x', 'é', '🌍'), minLength: 5, maxLength: 20 }),
);
const streamArb = fc.record({ lines: fc.array(lineArb, { maxLength: 12 }), finalNewline: fc.boolean() });

/** Reference framing: split the whole text, strip one trailing CR, classify by UTF-8 size. */
function reference(text: string): LineFrame[] {
  const parts = text.split('\n');
  if (parts[parts.length - 1] === '') parts.pop();
  const out: LineFrame[] = [];
  parts.forEach((raw, i) => {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    const bytes = encoder.encode(line).length;
    if (bytes > MAX) out.push({ ok: false, reason: 'too_long', bytes, lineNo: i + 1, head: new TextDecoder().decode(encoder.encode(line).subarray(0, HEAD), { stream: true }) });
    else if (line.trim() !== '') out.push({ ok: true, line, lineNo: i + 1 });
  });
  return out;
}

/** Cuts `bytes` at the given positions (any byte offset, including inside a character). */
function chunked(bytes: Uint8Array, cuts: readonly number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let prev = 0;
  for (const p of [...points, bytes.length]) {
    chunks.push(bytes.slice(prev, p));
    prev = p;
  }
  return chunks;
}

function run(chunks: readonly (string | Uint8Array)[]): LineFrame[] {
  const splitter = new LineSplitter({ maxLineBytes: MAX, headBytes: HEAD });
  const out: LineFrame[] = [];
  for (const c of chunks) {
    out.push(...splitter.push(c));
    // Never more than one line's worth (plus a possible `\r`) is held.
    expect(splitter.bufferedBytes).toBeLessThanOrEqual(MAX + 1);
  }
  out.push(...splitter.end());
  return out;
}

describe('LineSplitter properties', () => {
  it('yields the same frames for any chunking of the same byte stream', () => {
    fc.assert(
      fc.property(streamArb, fc.array(fc.nat(), { maxLength: 20 }), ({ lines, finalNewline }, cuts) => {
        const text = lines.join('\n') + (finalNewline ? '\n' : '');
        const bytes = encoder.encode(text);
        expect(run(chunked(bytes, cuts))).toEqual(reference(text));
      }),
      { numRuns: 500 },
    );
  });

  it('yields the same frames for any chunking of the same text', () => {
    fc.assert(
      fc.property(streamArb, fc.array(fc.nat(), { maxLength: 20 }), ({ lines, finalNewline }, cuts) => {
        const text = lines.join('\n') + (finalNewline ? '\n' : '');
        const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
        const chunks = [...points, text.length].map((p, i, all) => text.slice(i === 0 ? 0 : all[i - 1], p));
        expect(run(chunks)).toEqual(reference(text));
      }),
      { numRuns: 500 },
    );
  });

  it('never yields a line over the limit and reports every one of them', () => {
    fc.assert(
      fc.property(streamArb, fc.array(fc.nat(), { maxLength: 20 }), ({ lines }, cuts) => {
        const text = lines.join('\n');
        const frames = run(chunked(encoder.encode(text), cuts));
        for (const f of frames) if (f.ok) expect(encoder.encode(f.line).length).toBeLessThanOrEqual(MAX);
        const oversized = lines.filter((l) => encoder.encode(l.replace(/\r$/, '')).length > MAX).length;
        expect(frames.filter((f) => !f.ok).length).toBe(oversized);
      }),
      { numRuns: 500 },
    );
  });
});
