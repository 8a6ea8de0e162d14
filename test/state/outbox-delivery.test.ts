import { readFileSync, writeFileSync } from 'node:fs';
import { appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deliverOutboxOnce, openMemoryStateStore, reconcileFileSink, StateStore } from '../../state/index.js';
import type { OutboxEntry } from '../../state/index.js';
import { FailingBackend, LossyBackend } from './support/faulty-backends.js';
import { useTempDirs } from './support/temp-dirs.js';

const toLines = (entries: readonly OutboxEntry[]): string => entries.map((e) => JSON.stringify({ result_id: e.result_id, payload: e.payload }) + '\n').join('');

describe('outbox delivery', () => {
  const tempDir = useTempDirs();

  it('writes in order and advances the watermark after the write', async () => {
    const store = await openMemoryStateStore({ sinks: ['file'] });
    await store.commitBatch({ records: [], outbox: ['a', 'b', 'c'].map((id) => ({ result_id: id, payload: id })) });
    const written: string[] = [];
    const write = async (entries: readonly OutboxEntry[]): Promise<void> => void written.push(...entries.map((e) => e.result_id));
    expect(await deliverOutboxOnce(store, 'file', write, { limit: 2 })).toBe(2);
    expect(store.watermark('file')).toBe(2);
    expect(await deliverOutboxOnce(store, 'file', write, { limit: 2 })).toBe(1);
    expect(await deliverOutboxOnce(store, 'file', write, { limit: 2 })).toBe(0);
    expect(written).toEqual(['a', 'b', 'c']);
  });

  it('a failed write leaves the watermark where it was, so the entries are delivered again', async () => {
    const store = await openMemoryStateStore({ sinks: ['webhook'] });
    await store.commitBatch({ records: [], outbox: [{ result_id: 'a', payload: 1 }] });
    await expect(deliverOutboxOnce(store, 'webhook', () => Promise.reject(new Error('503')), { limit: 5 })).rejects.toThrow('503');
    expect(store.readOutbox('webhook', 5).map((e) => e.result_id)).toEqual(['a']);
  });

  it('the file sink never duplicates a line written just before a crash', async () => {
    const path = join(tempDir(), 'alerts.ndjson');
    const store = await openMemoryStateStore({ sinks: ['file'] });
    await store.commitBatch({ records: [], outbox: ['a', 'b', 'c'].map((id) => ({ result_id: id, payload: id })) });
    const crashAfterWrite = (): void => {
      throw new Error('crash');
    };
    await expect(deliverOutboxOnce(store, 'file', (e) => appendFile(path, toLines(e)), { limit: 2, crashHook: crashAfterWrite })).rejects.toThrow('crash');
    expect(store.watermark('file')).toBe(0);
    // Restart: the file already holds a and b.
    expect(await reconcileFileSink(store, 'file', path)).toBe(2);
    await deliverOutboxOnce(store, 'file', (e) => appendFile(path, toLines(e)), { limit: 5 });
    expect(readFileSync(path, 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { result_id: string }).result_id)).toEqual(['a', 'b', 'c']);
  });

  it('reconciling ignores a file whose last line is already covered by the watermark', async () => {
    const path = join(tempDir(), 'alerts.ndjson');
    writeFileSync(path, JSON.stringify({ result_id: 'old' }) + '\n');
    const store = await openMemoryStateStore({ sinks: ['file'] });
    await store.commitBatch({ records: [], outbox: [{ result_id: 'new', payload: 1 }] });
    expect(await reconcileFileSink(store, 'file', path)).toBeUndefined();
    expect(store.watermark('file')).toBe(0);
  });

  it('acknowledgements lost in a crash re-deliver nothing the file holds: each result once, in order', async () => {
    let lostAcks = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 6 }),
        fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 8 }),
        fc.nat({ max: 8 }),
        async (batches, rounds, keptAcks) => {
          const path = join(tempDir(), 'alerts.ndjson');
          const append = (e: readonly OutboxEntry[]): Promise<void> => appendFile(path, toLines(e));
          const lossy = new LossyBackend();
          const store = await StateStore.open(lossy, { sinks: ['file'] });
          const ids: string[] = [];
          for (const n of batches) {
            const batch = Array.from({ length: n }, (_, i) => `r${ids.length + i}`);
            await store.commitBatch({ records: [], outbox: batch.map((id) => ({ result_id: id, payload: id })) });
            ids.push(...batch);
          }
          // The first `keptAcks` acknowledgements reach the disk; the process dies before the rest do.
          for (let r = 0; r < rounds.length; r++) {
            lossy.holding = r >= keptAcks;
            await deliverOutboxOnce(store, 'file', append, { limit: rounds[r] ?? 1 });
          }
          lossy.crash();
          const delivered = readLines(path);
          const restarted = await openMemoryStateStore({ sinks: ['file'], backend: lossy.disk });
          if (restarted.watermark('file') < delivered.length) lostAcks++;
          await reconcileFileSink(restarted, 'file', path);
          expect(restarted.watermark('file')).toBe(delivered.length);
          while ((await deliverOutboxOnce(restarted, 'file', append, { limit: 3 })) > 0);
          expect(readLines(path)).toEqual(ids);
        },
      ),
      { numRuns: 100 },
    );
    // The property must actually have lost acknowledgements.
    expect(lostAcks).toBeGreaterThan(0);
  });

  it('a failed acknowledgement write is reported by the next acknowledgement, and every watermark is written again', async () => {
    const backend = new FailingBackend();
    const store = await StateStore.open(backend, { sinks: ['file', 'stdout'] });
    await store.commitBatch({ records: [], outbox: ['a', 'b', 'c'].map((id) => ({ result_id: id, payload: id })) });
    backend.failNext = true;
    await store.ackDelivered('file', 1);
    // A commit queued after the acknowledgement settles after its write.
    await store.commitBatch({ records: [] });
    await expect(store.ackDelivered('stdout', 2)).rejects.toThrow('disk full');
    await store.ackDelivered('stdout', 3);
    await store.close();
    const again = await openMemoryStateStore({ sinks: ['file', 'stdout'], backend: backend.disk });
    expect([again.watermark('file'), again.watermark('stdout')]).toEqual([1, 3]);
  });
});

function readLines(path: string): string[] {
  try {
    return readFileSync(path, 'utf8').trim().split('\n').filter((l) => l !== '').map((l) => (JSON.parse(l) as { result_id: string }).result_id);
  } catch {
    return [];
  }
}
