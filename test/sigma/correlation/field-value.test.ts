import { describe, expect, it } from 'vitest';
import { createFieldReader, numericValue, renderScalar } from '../../../sigma/correlation/index.js';

describe('correlation field values', () => {
  const read = createFieldReader();

  it('reads like the engine: literal dotted keys first, then nested paths', () => {
    const event = { 'a.b': 'flat', a: { b: 'nested', c: 2 }, list: [{ x: 1 }, { x: 2 }] };
    expect(read(event, 'a.b')).toBe('flat');
    expect(read(event, 'a.c')).toBe(2);
    expect(read(event, 'missing')).toBeUndefined();
    expect(read('not an object', 'a')).toBeUndefined();
  });

  it('never turns a fanned-out or structured value into a key or a number', () => {
    const event = { list: [{ x: 1 }, { x: 2 }], obj: { k: 1 }, arr: ['a'] };
    for (const f of ['list.x', 'obj', 'arr']) {
      expect(renderScalar(read(event, f))).toBeNull();
      expect(numericValue(read(event, f))).toBeUndefined();
    }
  });

  it('renders scalars for group keys and parses numbers and numeric strings', () => {
    expect([renderScalar('x'), renderScalar(3), renderScalar(false), renderScalar(null), renderScalar(undefined)]).toEqual(['x', '3', 'false', null, null]);
    expect([numericValue(4), numericValue(' 5 '), numericValue('1e3'), numericValue(''), numericValue('x'), numericValue(Infinity)]).toEqual([
      4,
      5,
      1000,
      undefined,
      undefined,
      undefined,
    ]);
  });
});
