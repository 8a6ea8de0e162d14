// Every corpus rule that converts to PostgreSQL returns exactly the events the engine matches, on a
// private PostgreSQL 15 cluster started for this file.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresServer } from '../../../scripts/sql/databases.js';
import { CORRELATION_EVENTS, CORRELATION_EXPECTED, convertCorpus, convertCorrelations, corpusFixture, differences, generatedCase, generatedComparison, regexCase, type CorpusFixture } from './differential.js';

let server: PostgresServer | undefined;
let fixture: CorpusFixture;

beforeAll(async () => {
  const [started, loaded] = await Promise.allSettled([PostgresServer.start(), corpusFixture()]);
  // Kept even when the fixture failed, so afterAll stops it.
  if (started.status === 'fulfilled') server = started.value;
  if (started.status === 'rejected') throw started.reason;
  if (loaded.status === 'rejected') throw loaded.reason;
  fixture = loaded.value;
  await started.value.load(fixture.events);
}, 120_000);

afterAll(async () => server?.stop(), 30_000);

describe('PostgreSQL differential', () => {
  it('agrees with the engine on every converted corpus rule, event for event', async () => {
    const db = server as PostgresServer;
    const conversion = convertCorpus(fixture, 'postgres');
    expect(conversion.converted.length).toBeGreaterThan(3000);
    const actual = await db.idsOf(conversion.converted.map((q) => q.query));
    expect(differences(conversion, fixture.expected, actual, fixture.events)).toEqual([]);
  }, 120_000);

  it('agrees with the engine on generated rules and events', async () => {
    const db = server as PostgresServer;
    await fc.assert(
      fc.asyncProperty(generatedCase, async ({ rules, events }) => {
        const c = generatedComparison(rules, events, 'postgres');
        await db.load(c.events);
        const actual = await db.idsOf(c.conversion.converted.map((q) => q.query));
        expect(differences(c.conversion, c.expected, actual, c.events)).toEqual([]);
      }),
      { numRuns: 150 },
    );
  }, 60_000);

  it('reads regexes as the engine does: JavaScript sets, word boundaries and line terminators in a UTF-8 locale', async () => {
    const db = server as PostgresServer;
    await fc.assert(
      fc.asyncProperty(regexCase, async ({ rules, events }) => {
        const c = generatedComparison(rules, events, 'postgres');
        expect(c.conversion.skipped).toEqual([]);
        await db.load(c.events);
        const actual = await db.idsOf(c.conversion.converted.map((q) => q.query));
        expect(differences(c.conversion, c.expected, actual, c.events)).toEqual([]);
      }),
      { numRuns: 150 },
    );
  }, 60_000);

  it('runs the fixture count, distinct, sum, average, temporal and ordered correlations and fires exactly the expected groups', async () => {
    const db = server as PostgresServer;
    const conversion = convertCorrelations('postgres');
    expect(conversion.skipped).toEqual([]);
    await db.load(CORRELATION_EVENTS);
    const fired: Record<string, string[]> = {};
    for (const q of conversion.converted) {
      if (q.kind !== 'correlation') continue;
      fired[q.title] = [...new Set((await db.rows(q.query)).map((r) => String(r['User'])))].sort();
    }
    expect(fired).toEqual(CORRELATION_EXPECTED);
  });
});
