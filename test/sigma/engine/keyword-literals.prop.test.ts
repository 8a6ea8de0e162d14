// Keyword items of plain literals answer from the candidate index's keyword scan (KeywordLiterals) and
// explain only the leaves the scan found literals in: full matches, matched fields included, must equal
// the search without the index, for short and long literal lists (one automaton per item from ten on),
// `|all`, negation, and leaves of every kind (numbers, booleans, nested, non-ASCII case folding).
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type { Detection, DetectionItem, DetectionRule, SigmaValue } from '../../../sigma/ast.js';
import { compileRules } from '../../../sigma/engine/index.js';

const WORDS = ['evil', 'EVIL', 'mimikatz', 'İnvoke', 'i̇nvoke', 'aaa', 'sekurlsa', '4624', 'true', 'ab', 'Straße', 'cmd.exe'];
const word = fc.constantFrom(...WORDS);
const leafText = fc.array(fc.oneof(word, fc.constantFrom(' ', '-', 'x', 'A', 'ß')), { maxLength: 4 }).map((ws) => ws.join(''));
const leaf = fc.oneof(leafText, fc.constantFrom<unknown>(4624, 1, true, false, null));
const event = fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd'), fc.oneof(leaf, fc.array(leaf, { maxLength: 3 }), fc.record({ n: leaf })), {
  maxKeys: 4,
});

const str = (s: string): SigmaValue => ({ kind: 'string', parts: [{ t: 'lit', s }], cased: false });
const keywordValue = fc.oneof(
  { weight: 6, arbitrary: word.map(str) },
  { weight: 1, arbitrary: fc.constantFrom<SigmaValue>({ kind: 'number', value: 4624, raw: '4624' }, { kind: 'bool', value: true }) },
);

const keywordItem = fc
  .tuple(fc.array(keywordValue, { minLength: 1, maxLength: 14 }), fc.boolean(), fc.boolean())
  .map(([values, all, negated]): DetectionItem => ({
    kind: 'item',
    field: null,
    modifiers: [],
    original: [],
    values,
    linking: all ? 'and' : 'or',
    negated,
  }));

const rule = (item: DetectionItem, i: number): DetectionRule => ({
  kind: 'detection',
  file: 'generated.yml',
  doc: i,
  title: `rule ${i}`,
  id: `id-${i}`,
  tags: [],
  custom: {},
  logsource: {},
  detections: new Map<string, Detection>([['keywords', { kind: 'detection', linking: 'and', children: [item] }]]),
  condition: ['keywords'],
});

describe('keyword literals answered by the keyword scan', () => {
  test('evaluate equals evaluateWithoutIndex, matched fields included', () => {
    fc.assert(
      fc.property(fc.array(keywordItem, { minLength: 1, maxLength: 4 }), fc.array(event, { minLength: 1, maxLength: 5 }), (items, events) => {
        const { engine, errors } = compileRules(items.map(rule));
        expect(errors).toEqual([]);
        for (const e of events) expect(engine.evaluate(e)).toEqual(engine.evaluateWithoutIndex(e));
      }),
      { numRuns: 600 },
    );
  });

  test('a long keyword list finds its literal in any leaf, whatever its case', () => {
    const many = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliett', 'kilo'];
    const { engine } = compileRules([
      rule({ kind: 'item', field: null, modifiers: [], original: [], values: many.map(str), linking: 'or', negated: false }, 0),
    ]);
    const hit = engine.evaluate({ a: 'nothing', b: { n: ['x', 'the HOTEL lobby'] } });
    expect(hit.map((m) => m.matchedFields)).toEqual([[{ field: 'keyword', value: 'the HOTEL lobby', selection: 'keywords', matcher: 'keyword', negated: false }]]);
    expect(engine.evaluate({ a: 'nothing', b: 7 })).toEqual([]);
  });
});
