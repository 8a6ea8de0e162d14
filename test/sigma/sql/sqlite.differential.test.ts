// Every corpus rule that converts to SQLite returns exactly the events the engine matches.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteDatabase } from '../../../scripts/sql/databases.js';
import { CORRELATION_EVENTS, CORRELATION_EXPECTED, convertCorpus, convertCorrelations, corpusFixture, differences, generatedCase, generatedComparison, regexCase, type CorpusFixture } from './differential.js';

let db: SqliteDatabase;
let fixture: CorpusFixture;

beforeAll(async () => {
  db = new SqliteDatabase();
  fixture = await corpusFixture();
  db.load(fixture.events);
}, 120_000);

afterAll(() => db?.remove());

describe('SQLite differential', () => {
  it('agrees with the engine on every converted corpus rule, event for event', async () => {
    const conversion = convertCorpus(fixture, 'sqlite');
    expect(conversion.converted.length).toBeGreaterThan(3000);
    // Two shells at once: the JSON functions make this the slowest step.
    const actual = await db.idsOfInParallel(conversion.converted.map((q) => q.query), 2);
    expect(differences(conversion, fixture.expected, actual, fixture.events)).toEqual([]);
  }, 120_000);

  it('agrees with the engine on generated rules and events', () => {
    fc.assert(
      fc.property(generatedCase, ({ rules, events }) => {
        // SQLite's lower() folds ASCII only (README): events keep to lower-case non-ASCII letters.
        const folded = events.map((e) => JSON.parse(JSON.stringify(e).replaceAll('É', 'é')) as Record<string, unknown>);
        const c = generatedComparison(rules, folded, 'sqlite');
        const actual = db.idsOf(c.conversion.converted.map((q) => q.query), c.events);
        expect(differences(c.conversion, c.expected, actual, c.events)).toEqual([]);
      }),
      { numRuns: 60 },
    );
  }, 60_000);

  it('reads regexes as the engine does: JavaScript sets, word boundaries and line terminators', () => {
    fc.assert(
      fc.property(regexCase, ({ rules, events }) => {
        const folded = events.map((e) => ({ B: e.B.replaceAll('É', 'é') }));
        const c = generatedComparison(rules, folded, 'sqlite');
        const actual = db.idsOf(c.conversion.converted.map((q) => q.query), c.events);
        expect(differences(c.conversion, c.expected, actual, c.events)).toEqual([]);
      }),
      { numRuns: 60 },
    );
  }, 60_000);

  it('refuses a $ that more of the pattern follows, which regexp.c never matches (a counterexample the property found: /$\\b/)', () => {
    const re = (doc: number, pattern: string) => ({
      kind: 'detection', file: 'generated.yml', doc, title: `regex ${doc}`, id: `id-${doc}`, tags: [], custom: {}, logsource: {}, condition: ['sel'],
      detections: new Map([['sel', { kind: 'detection', linking: 'and', children: [{ kind: 'item', field: 'B', modifiers: [], original: [], values: [{ kind: 'regex', pattern, flags: { i: false, m: false, s: false } }], linking: 'or', negated: false }] }]]),
    });
    const patterns = ['$\\b', '(a$|b)\\b', 'a$|b', '(\\.exe$)', '(?:a$)|b'];
    const c = generatedComparison(patterns.map((p, i) => re(i, p)) as never, [{ B: 'a' }, { B: 'b' }, { B: 'x.exe' }], 'sqlite');
    expect(c.conversion.skipped.map((k) => k.title)).toEqual(['regex 0', 'regex 1']);
    expect(new Set(c.conversion.skipped.map((k) => k.reason))).toEqual(new Set(['a regex $ with more of the pattern after it has no SQLite form']));
    const actual = db.idsOf(c.conversion.converted.map((q) => q.query), c.events);
    expect(differences(c.conversion, c.expected, actual, c.events)).toEqual([]);
    expect(actual).toEqual([[1, 2], [3], [1, 2]]);
  });

  it('compares a fieldref prefix or suffix as text when the field holds a JSON number (a counterexample the property found)', () => {
    const rule = (doc: number, mode: 'startswith' | 'endswith') => ({
      kind: 'detection', file: 'generated.yml', doc, title: `rule ${doc}`, id: `id-${doc}`, tags: [], custom: {}, logsource: {}, condition: ['sel1'],
      detections: new Map([['sel1', { kind: 'detection', linking: 'and', children: [{ kind: 'item', field: 'B', modifiers: [], original: [], values: [{ kind: 'fieldref', field: 'B', mode, cased: true }], linking: 'and', negated: false }] }]]),
    });
    const c = generatedComparison([rule(0, 'startswith'), rule(1, 'endswith')] as never, [{ B: 1720614600 }, { B: 'x' }, {}], 'sqlite');
    const actual = db.idsOf(c.conversion.converted.map((q) => q.query), c.events);
    expect(differences(c.conversion, c.expected, actual, c.events)).toEqual([]);
    expect([...c.expected.values()].flat()).toHaveLength(4);
  });

  it('runs the fixture count, distinct, sum, average, temporal and ordered correlations and fires exactly the expected groups', () => {
    const conversion = convertCorrelations('sqlite');
    expect(conversion.skipped).toEqual([]);
    db.load(CORRELATION_EVENTS);
    const fired: Record<string, string[]> = {};
    for (const q of conversion.converted) {
      if (q.kind !== 'correlation') continue;
      fired[q.title] = [...new Set((db.rows(q.query)).map((r) => String(r['User'])))].sort();
    }
    expect(fired).toEqual(CORRELATION_EXPECTED);
  });
});
