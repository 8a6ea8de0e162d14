import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeOutboxBatch } from '../../state/outbox-table.js';
import { openMemoryStateStore, Utf8Lines } from '../../state/index.js';

/** Result-like texts: JSON (lone surrogates escaped), of every header size msgpack has for strings. */
const jsonText = fc.oneof(
  fc.jsonValue().map((v) => JSON.stringify(v)),
  fc.string({ unit: 'binary', maxLength: 300 }).map((s) => JSON.stringify(s)),
  fc.string({ unit: 'grapheme', minLength: 20, maxLength: 120 }).map((s) => JSON.stringify({ rule_title: s, ok: '®' })),
);

const linesOf = (texts: readonly string[]): Utf8Lines => Utf8Lines.ofResults(texts.map((text) => ({ result_id: '', text })));

const encodeEach = (texts: readonly string[]): Buffer => Buffer.concat(texts.map((t) => Buffer.from(`${t}\n`, 'utf8')));

describe('Utf8Lines: a batch of result texts encoded once', () => {
  it('holds each text as Buffer.from encodes it, followed by a line break, also for raw line breaks and lone surrogates', () => {
    const anyText = fc.oneof(jsonText, fc.string({ unit: 'binary', maxLength: 40 }), fc.string({ unit: fc.constantFrom('a', '\n', '\ud800', '\udc00', '€', '𝄞') }));
    fc.assert(
      fc.property(fc.array(anyText, { maxLength: 30 }), fc.nat(), fc.nat(), (texts, a, b) => {
        const lines = linesOf(texts);
        expect(lines.length).toBe(texts.length);
        texts.forEach((t, i) => {
          expect(lines.bytes.subarray(lines.start(i), lines.end(i)).equals(Buffer.from(t, 'utf8'))).toBe(true);
          expect(lines.bytes[lines.end(i)]).toBe(0x0a);
        });
        const from = texts.length === 0 ? 0 : a % (texts.length + 1);
        const to = from + (texts.length === 0 ? 0 : b % (texts.length - from + 1));
        expect(lines.range(from, to).equals(encodeEach(texts.slice(from, to)))).toBe(true);
        texts.forEach((t, i) => expect(lines.text(i)).toBe(Buffer.from(t, 'utf8').toString('utf8')));
      }),
    );
  });
});

describe('Utf8Lines.ofResults: detections encoded from their id and text without it', () => {
  it('holds the bytes of the joined texts', () => {
    const result = fc.oneof(
      fc.record({ result_id: fc.string({ unit: 'binary', maxLength: 20 }), body: jsonText.filter((t) => t.startsWith('{')) }),
      fc.record({ result_id: fc.string({ maxLength: 20 }), text: jsonText }),
    );
    fc.assert(
      fc.property(fc.array(result, { maxLength: 20 }), (rs) => {
        const results = rs.map((r) => ({ result_id: r.result_id, text: 'body' in r ? `{"result_id":${JSON.stringify(r.result_id)},${r.body.slice(1)}` : r.text }));
        const texts = rs.flatMap((r) => ('body' in r ? [r.body] : []));
        let k = 0;
        const bodies = { texts: linesOf(texts), of: rs.map((r) => ('body' in r ? k++ : -1)) };
        expect(Utf8Lines.ofResults(results, bodies).bytes.equals(linesOf(results.map((r) => r.text)).bytes)).toBe(true);
        expect(Utf8Lines.ofResults(results).bytes.equals(encodeEach(results.map((r) => r.text)))).toBe(true);
      }),
    );
  });
});

describe('encodeOutboxBatch from encoded texts', () => {
  const drafts = (texts: readonly string[], first: number) => texts.map((payload, i) => ({ result_id: `i${first + i}-0`, payload }));

  it('packs the bytes msgpackr packs for the texts, for any count and text size', () => {
    fc.assert(
      fc.property(fc.array(jsonText, { maxLength: 40 }), fc.oneof(fc.nat(), fc.constant(2 ** 32 + 7)), (texts, first) => {
        const d = drafts(texts, first);
        expect(Buffer.from(encodeOutboxBatch(first, d, linesOf(texts))).equals(Buffer.from(encodeOutboxBatch(first, d)))).toBe(true);
      }),
    );
  });

  it('is exact at the 16- and 32-bit headers: 70,000 texts, and texts of 65,535 and 70,000 bytes', () => {
    const many = Array.from({ length: 70_000 }, (_, i) => `{"n":${i}}`);
    const long = [JSON.stringify('x'.repeat(65_533)), JSON.stringify('é'.repeat(35_000)), '{}'];
    for (const texts of [many, long]) {
      const d = drafts(texts, 1);
      expect(Buffer.from(encodeOutboxBatch(1, d, linesOf(texts))).equals(Buffer.from(encodeOutboxBatch(1, d)))).toBe(true);
    }
  });

  it('reads back as the texts committed', async () => {
    const store = await openMemoryStateStore({ sinks: ['s'] });
    const texts = ['{"result_id":"a","t":"Microsoft®"}', '{"result_id":"b","t":"\\ud800𝄞"}'];
    await store.commitBatch({ records: [], outbox: drafts(texts, 1), outboxLines: linesOf(texts) });
    expect(store.readOutbox('s', 10).map((e) => e.payload)).toEqual(texts);
  });
});
