// Every corpus rule that converts to SQLite returns exactly the events the engine matches.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteDatabase } from '../../../scripts/sql/databases.js';
import { convertCorpus, corpusFixture, differences, type CorpusFixture } from './differential.js';

let db: SqliteDatabase;
let fixture: CorpusFixture;

beforeAll(async () => {
  db = new SqliteDatabase();
  fixture = await corpusFixture();
  db.load(fixture.events);
}, 120_000);

afterAll(() => db?.remove());

describe('SQLite differential', () => {
  it('agrees with the engine on every converted corpus rule, event for event', () => {
    const conversion = convertCorpus(fixture, 'sqlite');
    expect(conversion.converted.length).toBeGreaterThan(3000);
    const actual = db.idsOf(conversion.converted.map((q) => q.query));
    expect(differences(conversion, fixture.expected, actual)).toEqual([]);
  }, 120_000);
});
