import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createExtractCompiler } from '../../streams/index.js';

// Three languages asked the same question about generated JSON must agree with each other and with
// plain property access: the extract interface may not bend values on the way in or out.
const key = fc.string({ minLength: 1, maxLength: 8 }).filter((k) => k !== '__proto__');
const json = fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.parse(JSON.stringify(v)) as unknown);
const doc = fc.dictionary(key, json, { minKeys: 1, maxKeys: 5 });

describe('extract (properties)', () => {
  const extract = createExtractCompiler();

  it('reads a member identically in jq, JSONPath and CEL', async () => {
    await fc.assert(
      fc.asyncProperty(doc, async (d) => {
        const k = Object.keys(d)[0] as string;
        const quoted = JSON.stringify(k);
        const expected = d[k];
        expect((await extract.compile('jq', `.[${quoted}]`)).evaluate(d)).toEqual(expected);
        expect((await extract.compile('jsonpath', `$[${quoted}]`)).evaluate(d)).toEqual(expected);
        expect((await extract.compile('cel', `data[${quoted}]`)).evaluate(d)).toEqual(expected);
      }),
      { numRuns: 60 },
    );
  });

  it('collapses a list of outputs the same way in jq and JSONPath', async () => {
    const iterate = await extract.compile('jq', '.xs[]');
    const wildcard = await extract.compile('jsonpath', '$.xs[*]');
    await fc.assert(
      fc.property(fc.array(json, { maxLength: 4 }), (xs) => {
        const expected = xs.length === 0 ? null : xs.length === 1 ? xs[0] : xs;
        expect(iterate.evaluate({ xs })).toEqual(expected);
        expect(wildcard.evaluate({ xs })).toEqual(expected);
      }),
      { numRuns: 60 },
    );
  });
});
