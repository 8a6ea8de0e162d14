import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readJsonObjects, type JsonObjectItem } from '../../../protocol/decode/index.js';

const read = (text: string): JsonObjectItem[] => [...readJsonObjects(text)];
const events = (text: string): unknown[] => read(text).flatMap((i) => (i.ok ? [i.event] : []));
const errors = (text: string): { error: string; offset: number }[] =>
  read(text).flatMap((i) => (i.ok ? [] : [{ error: i.error, offset: i.offset }]));

describe('readJsonObjects', () => {
  it('reads pretty-printed objects written one after another', () => {
    const text = `${JSON.stringify({ a: 1 }, null, 2)}\n${JSON.stringify({ b: { c: '}' } }, null, 2)}\n`;
    expect(read(text)).toEqual([
      { ok: true, event: { a: 1 }, offset: 0 },
      { ok: true, event: { b: { c: '}' } }, offset: text.indexOf('{', 5) },
    ]);
  });

  it('reads one object per line, with or without separating commas', () => {
    expect(events('{"a":1}\n{"a":2},\n{"a":3}')).toEqual([{ a: 1 }, { a: 2 }, { a: 3 }]);
  });

  it('reads a JSON array of objects, and several arrays', () => {
    expect(events('[{"a":1}, {"a":2}]')).toEqual([{ a: 1 }, { a: 2 }]);
    expect(events('[{"a":1}]\n[{"a":2}]')).toEqual([{ a: 1 }, { a: 2 }]);
  });

  it('reports non-objects in an array and keeps the objects', () => {
    const text = '[1, {"a":1}, [2], "s", {"a":2}]';
    expect(events(text)).toEqual([{ a: 1 }, { a: 2 }]);
    expect(errors(text)).toEqual([
      { error: 'expected a JSON object, got a number', offset: 1 },
      { error: 'expected a JSON object, got an array', offset: 13 },
      { error: 'expected a JSON object, got a string', offset: 18 },
    ]);
  });

  it('skips a malformed object and resumes at the next one', () => {
    const text = '{"a":1}\n{"b":,}\n{"c":3}';
    expect(events(text)).toEqual([{ a: 1 }, { c: 3 }]);
    expect(errors(text)).toEqual([{ error: expect.stringMatching(/^invalid JSON/), offset: 8 }]);
  });

  it('recovers from an unterminated object at the next object on its own line', () => {
    const text = '{"a": {"x": 1\n{"c":3}\n';
    expect(events(text)).toEqual([{ c: 3 }]);
    expect(errors(text)).toEqual([{ error: 'unterminated JSON value', offset: 0 }]);
  });

  it('reports stray text with its offset', () => {
    const text = '{"a":1} garbage here {"b":2}';
    expect(events(text)).toEqual([{ a: 1 }, { b: 2 }]);
    expect(errors(text)).toEqual([{ error: "unexpected content 'garbage here'", offset: 8 }]);
  });

  it('reports an unterminated array', () => {
    expect(errors('[{"a":1}')).toEqual([{ error: 'unterminated JSON array', offset: 0 }]);
  });

  it('yields nothing for empty input', () => {
    expect(read(' \n\t')).toEqual([]);
  });

  it('reads back any list of objects however it is laid out', () => {
    const obj = fc.dictionary(fc.string({ maxLength: 5 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 });
    const layout = fc.constantFrom('lines', 'pretty', 'array', 'commas');
    fc.assert(
      fc.property(fc.array(obj, { maxLength: 6 }), layout, (objs, how) => {
        const text =
          how === 'array'
            ? JSON.stringify(objs, null, 2)
            : objs.map((o) => JSON.stringify(o, null, how === 'pretty' ? 2 : undefined)).join(how === 'commas' ? ',\n' : '\n');
        const items = read(text);
        expect(items.every((i) => i.ok)).toBe(true);
        expect(events(text)).toEqual(objs.map((o) => JSON.parse(JSON.stringify(o)) as unknown));
      }),
      { numRuns: 300 },
    );
  });
});

describe('readJsonObjects on arbitrary text', () => {
  it('never throws, makes progress and reports offsets inside the text', () => {
    const noisy = fc.string({ unit: fc.constantFrom('{', '}', '[', ']', '"', '\\', ',', ':', '1', 'a', ' ', '\n'), maxLength: 60 });
    fc.assert(
      fc.property(fc.oneof(noisy, fc.string()), (text) => {
        const items = read(text);
        expect(items.length).toBeLessThanOrEqual(text.length + 1);
        let last = -1;
        for (const i of items) {
          expect(i.offset).toBeGreaterThanOrEqual(0);
          expect(i.offset).toBeLessThan(Math.max(text.length, 1));
          if (i.ok) expect(i.offset).toBeGreaterThan(last);
          last = Math.max(last, i.offset);
        }
      }),
      { numRuns: 1000 },
    );
  });
});
