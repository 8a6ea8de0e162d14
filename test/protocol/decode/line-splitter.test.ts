import { describe, expect, it } from 'vitest';
import { LineSplitter, MAX_LINE_BYTES, OVERSIZED_HEAD_BYTES, splitLines, type LineFrame } from '../../../protocol/decode/index.js';

const lines = (frames: readonly LineFrame[]): string[] => frames.flatMap((f) => (f.ok ? [f.line] : []));
const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

describe('LineSplitter', () => {
  it('yields complete lines, strips \\r\\n and flushes a final line without newline', () => {
    expect(splitLines('a\r\nb\nc')).toEqual([
      { ok: true, line: 'a', lineNo: 1 },
      { ok: true, line: 'b', lineNo: 2 },
      { ok: true, line: 'c', lineNo: 3 },
    ]);
  });

  it('skips empty and whitespace-only lines but keeps counting them', () => {
    expect(splitLines('\n\n  \t\r\nx\n\n')).toEqual([{ ok: true, line: 'x', lineNo: 4 }]);
  });

  it('holds a partial line until its newline arrives', () => {
    const s = new LineSplitter();
    expect(s.push('{"a":')).toEqual([]);
    expect(lines(s.push('1}\n{"b"'))).toEqual(['{"a":1}']);
    expect(lines(s.end())).toEqual(['{"b"']);
    expect(s.end()).toEqual([]);
  });

  it('joins a \\r\\n terminator split across chunks', () => {
    const s = new LineSplitter();
    expect(s.push('abc\r')).toEqual([]);
    expect(lines(s.push('\ndef\n'))).toEqual(['abc', 'def']);
  });

  it('decodes multi-byte characters split across byte chunks', () => {
    const bytes = utf8('héllo 🌍\n');
    const s = new LineSplitter();
    const out = [...s.push(bytes.subarray(0, 2)), ...s.push(bytes.subarray(2, 8)), ...s.push(bytes.subarray(8))];
    expect(lines(out)).toEqual(['héllo 🌍']);
  });

  it('keeps surrogate pairs split across string chunks intact', () => {
    const text = '🌍x\n';
    const s = new LineSplitter();
    expect(lines([...s.push(text.slice(0, 1)), ...s.push(text.slice(1))])).toEqual(['🌍x']);
  });

  it('does not depend on the caller keeping its chunk buffer', () => {
    const buf = utf8('abc');
    const s = new LineSplitter();
    s.push(buf);
    buf.fill(0x7a);
    expect(lines(s.push('\n'))).toEqual(['abc']);
  });

  it('reports invalid UTF-8 lines instead of yielding them', () => {
    const out = splitLines(new Uint8Array([0x61, 0x0a, 0xff, 0xfe, 0x0a, 0x62]));
    expect(out).toEqual([
      { ok: true, line: 'a', lineNo: 1 },
      { ok: false, reason: 'invalid_utf8', bytes: 2, lineNo: 2, head: '\ufffd\ufffd' },
      { ok: true, line: 'b', lineNo: 3 },
    ]);
  });

  it('accepts a line of exactly the limit and reports one byte more, with its size', () => {
    const out = splitLines(`${'a'.repeat(8)}\r\n${'b'.repeat(9)}\nok`, { maxLineBytes: 8 });
    expect(out).toEqual([
      { ok: true, line: 'a'.repeat(8), lineNo: 1 },
      { ok: false, reason: 'too_long', bytes: 9, lineNo: 2, head: 'b'.repeat(9) },
      { ok: true, line: 'ok', lineNo: 3 },
    ]);
  });

  it('counts the limit in UTF-8 bytes, not characters', () => {
    expect(splitLines('éééé\n', { maxLineBytes: 7 })).toEqual([{ ok: false, reason: 'too_long', bytes: 8, lineNo: 1, head: 'éééé' }]);
  });

  it('stops buffering an oversized line while it streams in', () => {
    const s = new LineSplitter({ maxLineBytes: 16 });
    const chunk = 'x'.repeat(10);
    expect(s.push(chunk)).toEqual([]);
    expect(s.bufferedBytes).toBe(10);
    for (let i = 1; i < 1000; i++) {
      expect(s.push(chunk)).toEqual([]);
      expect(s.bufferedBytes).toBe(0);
    }
    expect(s.push('\nnext\n')).toEqual([
      { ok: false, reason: 'too_long', bytes: 10_000, lineNo: 1, head: 'x'.repeat(OVERSIZED_HEAD_BYTES) },
      { ok: true, line: 'next', lineNo: 2 },
    ]);
  });

  it('reports an oversized final line without newline at end', () => {
    const s = new LineSplitter({ maxLineBytes: 4 });
    s.push('toolong');
    expect(s.end()).toEqual([{ ok: false, reason: 'too_long', bytes: 7, lineNo: 1, head: 'toolong' }]);
  });

  it('keeps the head of an oversized line up to a character boundary', () => {
    expect(splitLines('aéé€b\n', { maxLineBytes: 4, headBytes: 5 })).toEqual([{ ok: false, reason: 'too_long', bytes: 9, lineNo: 1, head: 'aéé' }]);
    expect(splitLines('aéé€b\n', { maxLineBytes: 4, headBytes: 4 })).toEqual([{ ok: false, reason: 'too_long', bytes: 9, lineNo: 1, head: 'aé' }]);
  });

  it('defaults the limit to 1 MiB', () => {
    expect(MAX_LINE_BYTES).toBe(1_048_576);
    const big = 'a'.repeat(MAX_LINE_BYTES);
    expect(splitLines(`${big}\n${big}b\n`).map((f) => (f.ok ? f.line.length : f.reason))).toEqual([
      MAX_LINE_BYTES,
      'too_long',
    ]);
  });
});
