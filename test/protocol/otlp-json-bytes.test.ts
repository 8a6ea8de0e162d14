// The JSON writer of the OTLP byte-level readers (`protocol/otlp/json-bytes.ts`): a string's UTF-8 bytes,
// wherever they lie in the source (its words are read four bytes at a time, unaligned), are written as
// `JSON.stringify` writes the string; so is a run of strings into one growing buffer.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonBytes } from '../../protocol/otlp/json-bytes.js';

/** Strings dense in what must be escaped (quote, backslash, control characters) next to plain and multi-byte text. */
const text = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.array(fc.constantFrom('a', 'B', '"', '\\', '\n', '\u0000', '\u001f', ' ', '!', '#', '[', ']', '\u007f', 'é', '日', '\u2028'), { maxLength: 40 }).map((cs) => cs.join('')),
);

describe('JsonBytes.literal', () => {
  it('copies a JSON string literal of UTF-8 as it is when its escapes are short ones, else writes nothing and answers -1', () => {
    fc.assert(
      fc.property(text, fc.nat({ max: 7 }), (s, offset) => {
        const literal = JSON.stringify(s);
        const src = Buffer.concat([Buffer.alloc(offset, 0x20), Buffer.from(`${literal},"next"`, 'utf8')]);
        const w = new JsonBytes();
        const next = w.literal(src, offset);
        const copyable = /^"([^"\\\x00-\x1f]|\\["\\bfnrt])*"$/u.test(literal);
        expect(next).toBe(copyable ? offset + Buffer.byteLength(literal) : -1);
        expect(Buffer.from(w.copy(0, w.pos)).toString('utf8')).toBe(copyable ? literal : '');
      }),
      { numRuns: 500 },
    );
  });
});

/**
 * Strings from `strings`, each at an offset in a source of its own with bytes around it that a writer
 * must not take, written one after the other by `write`: the text is what `expected` makes of them.
 */
function writesEach(strings: fc.Arbitrary<string>, write: (w: JsonBytes, src: Buffer, from: number, to: number) => void, expected: (s: string) => string, numRuns: number): void {
  fc.assert(
    fc.property(fc.array(fc.tuple(strings, fc.nat({ max: 7 })), { minLength: 1, maxLength: 8 }), (parts) => {
      const w = new JsonBytes();
      for (const [s, offset] of parts) {
        const bytes = Buffer.from(s, 'utf8');
        write(w, Buffer.concat([Buffer.alloc(offset, 0x22), bytes, Buffer.alloc(3, 0x5c)]), offset, offset + bytes.length);
      }
      expect(Buffer.from(w.copy(0, w.pos)).toString('utf8')).toBe(parts.map(([s]) => expected(s)).join(''));
    }),
    { numRuns },
  );
}

describe('JsonBytes.name', () => {
  it('writes a member name needing no escapes, at any offset, as JSON.stringify writes it after a comma', () => {
    const plain = text.map((s) => s.replace(/["\\\x00-\x1f]/gu, '').replace(/[\ud800-\udfff]/gu, ''));
    writesEach(plain, (w, src, from, to) => w.name(src, from, to), (s) => `,${JSON.stringify(s)}:`, 300);
  });
});

describe('JsonBytes.string', () => {
  it('writes the UTF-8 bytes of any string at any offset as JSON.stringify does', () => {
    writesEach(text, (w, src, from, to) => w.string(src, from, to), (s) => JSON.stringify(s), 500);
  });

  it('hands its bytes over when they fill most of its buffer, else a copy of them', () => {
    for (const [size, n] of [[16, 12], [64, 12]] as const) {
      const w = new JsonBytes(size);
      w.ascii('x'.repeat(n));
      const taken = w.take();
      expect(Buffer.from(taken).toString()).toBe('x'.repeat(n));
      expect(taken.buffer.byteLength).toBe(size === 16 ? 16 : n);
    }
  });

  it('keeps writing correctly once its buffer has grown', () => {
    const w = new JsonBytes();
    const s = `${'x'.repeat(70_000)}"\\\n${'y'.repeat(10)}`;
    w.string(Buffer.from(`  ${s}`), 2, 2 + s.length);
    w.string(Buffer.from('a"b'), 0, 3);
    expect(Buffer.from(w.copy(0, w.pos)).toString('utf8')).toBe(`${JSON.stringify(s)}"a\\"b"`);
  });
});
