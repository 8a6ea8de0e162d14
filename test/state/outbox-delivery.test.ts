import { readFileSync, writeFileSync } from 'node:fs';
import { appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { deliverOutboxOnce, openMemoryStateStore, reconcileFileSink } from '../../src/state/index.js';
import type { OutboxEntry } from '../../src/state/index.js';
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
});
