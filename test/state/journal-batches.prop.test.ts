import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { inspectStore } from '../../state/index.js';
import { STORE_FLAVOURS } from './support/store-harness.js';
import { useTempDirs } from './support/temp-dirs.js';

const record = (n: number) => ({ at: n, kind: 'counter', key: `k${n % 3}`, event: { n } });

/** Committed batches of records, with snapshots (which prune the journal) after some of them. */
const historyArb = fc.array(fc.record({ size: fc.integer({ min: 0, max: 5 }), snapshot: fc.boolean() }), { minLength: 1, maxLength: 12 });

describe.each(STORE_FLAVOURS)('%s journal batches', (name, harness) => {
  const tempDir = useTempDirs();

  it('replay in slices of any size, from any point, visits every retained record once, in order', async () => {
    await fc.assert(
      fc.asyncProperty(historyArb, fc.integer({ min: 1, max: 7 }), fc.nat({ max: 40 }), async (history, slice, startAt) => {
        const store = await harness(join(tempDir(), 'db'))();
        try {
          let seq = 0;
          // A snapshot keeps the one before it as a fallback, and the journal after that one.
          let newest: number | undefined;
          let floor = 0;
          for (const { size, snapshot } of history) {
            await store.commitBatch({ records: Array.from({ length: size }, (_, i) => record(seq + i + 1)) });
            seq += size;
            if (snapshot && newest !== seq) {
              await store.writeSnapshot({ seq, at: seq, kinds: [], definitions: {} });
              floor = Math.max(floor, newest ?? 0);
              newest = seq;
            }
          }
          // Records at or below the floor are pruned, even inside a batch that stays stored.
          const first = seq > floor ? floor + 1 : undefined;
          expect(store.firstJournalSeq()).toBe(first);
          const retained = first === undefined ? [] : Array.from({ length: seq - first + 1 }, (_, i) => first + i);
          expect(inspectStore(store).journal).toEqual({ length: retained.length, first_seq: first ?? null, last_seq: seq });
          const from = Math.min(seq, (first ?? 1) - 1 + (startAt % (retained.length + 1)));
          const seen: number[] = [];
          let at = from;
          for (;;) {
            const stats = store.replay(at, (r) => seen.push(r.seq), 'fail', slice);
            expect(stats.replayed).toBeLessThanOrEqual(slice);
            if (stats.lastSeq === at) break;
            at = stats.lastSeq;
          }
          expect(seen).toEqual(retained.filter((s) => s > from));
          const records: unknown[] = [];
          store.replay(from, (r) => records.push(r), 'fail');
          expect(records).toEqual(retained.filter((s) => s > from).map((s) => ({ seq: s, ...record(s) })));
        } finally {
          await store.close();
        }
      }),
      { numRuns: name === 'lmdb' ? 30 : 150 },
    );
  });
});
