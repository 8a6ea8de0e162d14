import Compile from 'typebox/compile';
import { describe, expect, it } from 'vitest';
import { inspectStateDir, inspectStore, openLmdbStateStore, openMemoryStateStore, StateReport } from '../../state/index.js';
import { useTempDirs } from './support/temp-dirs.js';

describe('state inspect', () => {
  const tempDir = useTempDirs();

  it('reports snapshot, journal, outbox backlog per sink and state counts while the store is open', async () => {
    const dir = tempDir();
    const store = await openLmdbStateStore(dir, { sinks: ['file', 'stdout'] });
    const hit = { at: 1, kind: 'counter', key: 'k', event: { type: 'hit', at: 1 } };
    await store.commitBatch({ records: [hit, hit], outbox: [{ result_id: 'a', payload: 1 }], input: { count: 2, source: 'nats', position: 9 } });
    await store.writeSnapshot({ seq: 2, at: 50, kinds: [{ kind: 'counter', version: 2, entries: [['k', [2, 1]], ['j', [1, 1]]] }], definitions: { r: 'h' } });
    await store.commitBatch({ records: [hit], outbox: [{ result_id: 'b', payload: 2 }, { result_id: 'c', payload: 3 }], idempotency: { key: 'req', answer: 1, at: 60 } });
    await store.ackDelivered('file', 3);
    await store.ackDelivered('stdout', 1);
    // Acknowledgements are written behind the scenes; a commit after them lands after them.
    await store.commitBatch({ records: [] });
    const report = await inspectStateDir(dir);
    expect(report).toMatchObject({
      snapshot: { seq: 2, at: 50, previous_seq: null },
      journal: { length: 3, first_seq: 1, last_seq: 3 },
      outbox: { length: 2, last_oseq: 3, backlog: { file: 0, stdout: 2 } },
      states: { counter: 2 },
      definitions: 1,
      input_ordinal: 2,
      input_positions: { nats: 9 },
      idempotency_keys: 1,
    });
    expect(report.size_bytes).toBeGreaterThan(0);
    expect(Compile(StateReport).Check(report)).toBe(true);
    // The daemon's handle is unaffected by the inspector's.
    await store.commitBatch({ records: [hit] });
    expect(store.lastSeq).toBe(4);
    await store.close();
  });

  it('reports an empty environment without creating anything', async () => {
    const dir = tempDir();
    await (await openLmdbStateStore(dir)).close();
    expect(await inspectStateDir(dir)).toMatchObject({ snapshot: null, journal: { length: 0, first_seq: null, last_seq: 0 }, outbox: { length: 0, backlog: {} }, states: {} });
  });

  it('says so when the directory holds no state database', async () => {
    await expect(inspectStateDir(tempDir())).rejects.toThrow(/no state database/);
  });

  it('reports on a memory store the same way', async () => {
    const store = await openMemoryStateStore({ sinks: ['stdout'] });
    await store.commitBatch({ records: [], outbox: [{ result_id: 'a', payload: 1 }] });
    expect(inspectStore(store)).toMatchObject({ outbox: { length: 1, backlog: { stdout: 1 } }, size_bytes: 0 });
  });
});
