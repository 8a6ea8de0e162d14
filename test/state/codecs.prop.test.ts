import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { packChecked, packValue, storedCodec, unpackChecked } from '../../state/value-codec.js';
import { JournalRecord, SnapshotChunk } from '../../state/index.js';
import { createCorrelationKinds } from '../../streams/index.js';
import type { AnyJournaledKind } from '../../state/index.js';
import { runtimeFor } from '../actors/correlation/harness.js';
import { correlationRule, detections } from '../sigma/correlation/rule-fixtures.js';

// Event times in seconds, inside and across the 60 s windows.
const hits = fc.array(fc.record({ host: fc.constantFrom('a', 'b', 'c'), user: fc.constantFrom('x', 'y', null), t: fc.nat({ max: 300 }) }), { maxLength: 20 });
const rules = [
  correlationRule({ id: 'count', type: 'event_count', rules: ['r0'], groupBy: ['host'], condition: { ops: { gte: 4 } } }),
  correlationRule({ id: 'users', type: 'value_count', rules: ['r0'], groupBy: ['host'], condition: { field: ['user'], ops: { gte: 3 } } }),
];
// Events arrive as JSON, so -0 never occurs (msgpack writes it as 0); `__proto__` keys have their own test.
const plain = fc
  .jsonValue()
  .map((v): unknown => JSON.parse(JSON.stringify(v)))
  .filter((v) => !JSON.stringify(v).includes('"__proto__"'));

describe('codecs', () => {
  it('each registered correlation kind decodes what it encodes, also after msgpack', () => {
    const chunks = storedCodec(SnapshotChunk);
    fc.assert(
      fc.property(hits, fc.integer({ min: -1, max: 10_000 }), (events, tickedAt) => {
        const runtime = runtimeFor(rules, detections(1), { timestampFields: ['t'] });
        for (const e of [...events].sort((x, y) => x.t - y.t)) runtime.onEvent([{ name: 'r0' }], e, 0);
        for (const kind of createCorrelationKinds(() => runtime, { tickedAt }).kinds as AnyJournaledKind[]) {
          for (const [key, state] of kind.states()) {
            const chunk = chunks.decode(packValue({ kind: kind.kind, entries: [[key, kind.codec.encode(state)]] }));
            // States may share an entry log (actors/correlation/entries.ts), so a decoded state equals the
            // original in what it encodes, not in the log it holds.
            const decoded = kind.codec.decode(chunk?.entries[0]?.[1], kind.codec.version);
            expect(decoded).toBeDefined();
            expect(kind.codec.encode(decoded as typeof state)).toEqual(kind.codec.encode(state));
          }
        }
      }),
    );
  });

  it('journal records round-trip through msgpack unchanged', () => {
    const codec = storedCodec(JournalRecord);
    fc.assert(
      fc.property(fc.nat(), fc.integer(), fc.string(), fc.string(), plain, (seq, at, kind, key, event) => {
        const record = { seq, at, kind, key, event };
        expect(codec.decode(packValue(record))).toEqual(record);
      }),
    );
  });

  it('renames a __proto__ key to __proto_ rather than touch a prototype (msgpackr)', () => {
    const codec = storedCodec(JournalRecord);
    const event: unknown = JSON.parse('{"__proto__":{"polluted":1}}');
    const decoded = codec.decode(packValue({ seq: 1, at: 0, kind: 'k', key: 'k', event }));
    expect(decoded?.event).toEqual({ __proto_: { polluted: 1 } });
    expect(Object.getPrototypeOf(decoded?.event)).toBe(Object.prototype);
  });

  it('decodes damaged or mis-shaped bytes to undefined instead of throwing', () => {
    const codec = storedCodec(JournalRecord);
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        const decoded = codec.decode(bytes);
        if (decoded !== undefined) expect(typeof decoded.seq).toBe('number');
      }),
    );
    expect(codec.decode(packValue({ seq: -1, at: 0, kind: 'k', key: 'k', event: null }))).toBeUndefined();
  });

  it('a checksummed value detects any single flipped byte', () => {
    const codec = storedCodec(SnapshotChunk);
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.string(), plain), { maxLength: 5 }), fc.nat(), fc.integer({ min: 1, max: 255 }), (entries, at, flip) => {
        const framed = packChecked({ kind: 'k', entries });
        expect(unpackChecked(codec, framed)).toEqual({ kind: 'k', entries });
        const damaged = Uint8Array.from(framed);
        const i = at % damaged.length;
        damaged[i] = (damaged[i] ?? 0) ^ flip;
        expect(unpackChecked(codec, damaged)).toBeUndefined();
      }),
    );
  });
});
