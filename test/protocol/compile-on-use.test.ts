// compileOnUse: a validator that compiles its schema on first use, once, and answers as the compiled one does.
import fc from 'fast-check';
import Type from 'typebox';
import Compile from 'typebox/compile';
import { describe, expect, it } from 'vitest';
import { compileOnUse } from '../../protocol/index.js';

const Shape = Type.Object(
  {
    name: Type.String({ minLength: 1 }),
    level: Type.Optional(Type.Union([Type.Literal('low'), Type.Literal('high')])),
    count: Type.Integer({ minimum: 0, default: 1 }),
    tags: Type.Optional(Type.Array(Type.String())),
  },
  { additionalProperties: false },
);

/** `schema` with its `properties` read counted: compiling reads them, checking with the compiled code does not (errors are worked out from the schema itself). */
function counted<T extends object>(schema: T): { schema: T; reads: () => number } {
  let reads = 0;
  const copy = { ...schema };
  const properties = (schema as { properties?: unknown }).properties;
  Object.defineProperty(copy, 'properties', {
    enumerable: true,
    get() {
      reads++;
      return properties;
    },
  });
  return { schema: copy, reads: () => reads };
}

const values = fc.oneof(
  fc.record({ name: fc.string(), level: fc.constantFrom('low', 'high', 'mid'), count: fc.oneof(fc.integer({ min: -2, max: 5 }), fc.constant('3')), tags: fc.array(fc.oneof(fc.string(), fc.integer())) }, { requiredKeys: [] }),
  fc.anything(),
);

describe('compileOnUse', () => {
  it('compiles nothing until first used, then once', () => {
    const { schema, reads } = counted(Shape);
    const validator = compileOnUse(schema);
    expect(reads()).toBe(0);
    expect(validator.Check({ name: 'a', count: 1 })).toBe(true);
    const afterFirst = reads();
    expect(afterFirst).toBeGreaterThan(0);
    expect(validator.Check({ name: '', count: 1 })).toBe(false);
    expect(validator.Check({ name: 'b', count: 2, level: 'high' })).toBe(true);
    expect(reads()).toBe(afterFirst);
  });

  it('answers as the compiled validator does', () => {
    const compiled = Compile(Shape);
    const onUse = compileOnUse(Shape);
    fc.assert(
      fc.property(values, (value) => {
        expect(onUse.Check(value)).toBe(compiled.Check(value));
        expect(onUse.Errors(value)).toEqual(compiled.Errors(value));
        expect(onUse.Convert(structuredClone(value))).toEqual(compiled.Convert(structuredClone(value)));
        expect(onUse.Default(structuredClone(value))).toEqual(compiled.Default(structuredClone(value)));
        expect(onUse.Clean(structuredClone(value))).toEqual(compiled.Clean(structuredClone(value)));
      }),
      { numRuns: 300 },
    );
  });
});
