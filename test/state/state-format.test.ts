import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LmdbBackend } from '../../state/lmdb-backend.js';
import { inspectStateDir, MemoryBackend, openLmdbStateStore, openMemoryStateStore, StateFormatError } from '../../state/index.js';
import { packValue } from '../../state/value-codec.js';
import { storedFormat } from '../../state/state-format.js';
import { useTempDirs } from './support/temp-dirs.js';

/** A directory as format 1 left it: a value per journal record and per outbox entry, no format key. */
async function formatOneDir(dir: string): Promise<void> {
  const lmdb = new LmdbBackend(dir);
  await lmdb.write((w) => {
    w.put('journal', 1, packValue({ seq: 1, at: 0, kind: 'corr', key: 'k', event: null }));
    w.put('outbox', 1, packValue({ oseq: 1, result_id: 'a', payload: 'x' }));
    w.put('meta', 'counters', packValue({ last_seq: 1, last_oseq: 1, input_ordinal: 1, idempotency_seq: 0 }));
  });
  await lmdb.close();
}

describe('state directory format', () => {
  const tempDir = useTempDirs();

  it('is recorded when a store is created, and reopens', async () => {
    const backend = new MemoryBackend();
    const store = await openMemoryStateStore({ backend });
    await store.commitBatch({ records: [{ at: 0, kind: 'k', key: 'k', event: null }], outbox: [{ result_id: 'a', payload: 'x' }] });
    await store.close();
    const again = await openMemoryStateStore({ backend });
    expect(again.readOutbox('any', 10).map((e) => e.result_id)).toEqual(['a']);
    await again.close();
  });

  it('refuses a directory of format 1, naming both versions, to the daemon and to inspect', async () => {
    const dir = join(tempDir(), 'state');
    await formatOneDir(dir);
    const opening = openLmdbStateStore(dir, { sinks: ['file'] });
    await expect(opening).rejects.toBeInstanceOf(StateFormatError);
    await expect(opening).rejects.toThrow(/has format 1; this sigmad reads formats 2 and 3/);
    await expect(inspectStateDir(dir)).rejects.toThrow(/has format 1; this sigmad reads formats 2 and 3/);
    // Refusing wrote nothing: the directory is still format 1.
    await expect(openLmdbStateStore(dir)).rejects.toMatchObject({ found: 1, expected: 3 });
  });

  it('refuses a newer format', async () => {
    const backend = new MemoryBackend();
    await backend.write((w) => w.put('meta', 'format', packValue({ version: 4 })));
    await expect(openMemoryStateStore({ backend })).rejects.toThrow(/has format 4; this sigmad reads formats 2 and 3/);
  });

  it('reads a format 2 directory as it is (plain-map journal batches) and marks it 3 when opened for writing', async () => {
    const dir = join(tempDir(), 'state');
    const records = [{ seq: 1, at: 5, kind: 'corr', key: 'k', event: { n: 1 } }, { seq: 2, at: 5, kind: 'corr', key: 'k', event: { n: 2 } }];
    const lmdb = new LmdbBackend(dir);
    await lmdb.write((w) => {
      w.put('meta', 'format', packValue({ version: 2 }));
      w.put('journal', 2, packValue({ first: 1, records }));
      w.put('meta', 'counters', packValue({ last_seq: 2, last_oseq: 0, input_ordinal: 2, idempotency_seq: 0 }));
    });
    await lmdb.close();
    expect((await inspectStateDir(dir)).journal.length).toBe(2);
    const store = await openLmdbStateStore(dir);
    const seen: unknown[] = [];
    store.replay(0, (r) => seen.push(r), 'fail');
    expect(seen).toEqual(records);
    await store.commitBatch({ records: [{ at: 6, kind: 'corr', key: 'k', event: { n: 3 } }] });
    const again: number[] = [];
    store.replay(0, (r) => again.push(r.seq), 'fail');
    expect(again).toEqual([1, 2, 3]);
    await store.close();
    const reopened = new LmdbBackend(dir);
    expect(storedFormat(reopened)).toBe(3);
    await reopened.close();
  });
});
