import { describe, expect, it } from 'vitest';
import { decodeJsonLine } from '../../../protocol/decode/index.js';

describe('decodeJsonLine', () => {
  it('decodes a JSON object', () => {
    expect(decodeJsonLine('{"Image":"C:\\\\a.exe","n":1}')).toEqual({ ok: true, event: { Image: 'C:\\a.exe', n: 1 } });
  });

  it('reports arrays and scalars as parse errors', () => {
    expect(decodeJsonLine('[{"a":1}]')).toEqual({ ok: false, error: 'expected a JSON object, got an array' });
    expect(decodeJsonLine('42')).toEqual({ ok: false, error: 'expected a JSON object, got a number' });
    expect(decodeJsonLine('"x"')).toEqual({ ok: false, error: 'expected a JSON object, got a string' });
    expect(decodeJsonLine('null')).toEqual({ ok: false, error: 'expected a JSON object, got null' });
  });

  it('reports malformed JSON without throwing', () => {
    const r = decodeJsonLine('{"a":');
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error).toMatch(/^invalid JSON: /);
  });
});
