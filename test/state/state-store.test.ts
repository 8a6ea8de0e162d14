import { describe, expect, it } from 'vitest';
import { inspectStore, StateCorruptionError } from '../../state/index.js';
import type { JournalDraft, StateStore } from '../../state/index.js';
import { STORE_FLAVOURS } from './support/store-harness.js';
import { useTempDirs } from './support/temp-dirs.js';

const draft = (n: number): JournalDraft => ({ at: 1000 + n, kind: 'counter', key: `k${n % 3}`, event: { type: 'hit', at: 1000 + n } });
const result = (id: string) => ({ result_id: id, payload: { rule: 'r', id } });

function journal(store: StateStore): number[] {
  const seqs: number[] = [];
  store.replay(0, (r) => seqs.push(r.seq), 'fail');
  return seqs;
}

describe.each(STORE_FLAVOURS)('%s state store', (_name, harness) => {
  const tempDir = useTempDirs();

  it('numbers journal records and outbox entries consecutively and keeps them across a reopen', async () => {
    const reopen = harness(tempDir());
    const store = await reopen();
    const a = await store.commitBatch({ records: [draft(1), draft(2)], outbox: [result('x')], input: { count: 5, source: 'nats', position: 41 } });
    const b = await store.commitBatch({ records: [draft(3)], outbox: [], input: { count: 2, source: 'nats', position: 43 } });
    expect(a).toEqual({ firstSeq: 1, lastSeq: 2, firstOseq: 1, lastOseq: 1 });
    expect(b).toEqual({ firstSeq: 3, lastSeq: 3, firstOseq: 2, lastOseq: 1 });
    await store.close();
    const again = await reopen();
    expect(again.lastSeq).toBe(3);
    expect(again.nextInputOrdinal).toBe(7);
    expect(again.inputPosition('nats')).toBe(43);
    expect(journal(again)).toEqual([1, 2, 3]);
    const records: unknown[] = [];
    again.replay(1, (r) => records.push(r), 'fail');
    expect(records).toEqual([{ seq: 2, ...draft(2) }, { seq: 3, ...draft(3) }]);
    await again.close();
  });

  it('delivers the outbox per sink after its watermark and prunes only what every sink has', async () => {
    const reopen = harness(tempDir());
    const store = await reopen({ sinks: ['file', 'stdout'] });
    await store.commitBatch({ records: [draft(1)], outbox: [result('a')] });
    await store.commitBatch({ records: [draft(2)], outbox: [result('b'), result('c')] });
    expect(store.readOutbox('file', 10).map((e) => e.result_id)).toEqual(['a', 'b', 'c']);
    await store.ackDelivered('file', 2);
    expect(store.readOutbox('file', 10).map((e) => e.result_id)).toEqual(['c']);
    expect(store.readOutbox('stdout', 2).map((e) => e.oseq)).toEqual([1, 2]);
    await store.ackDelivered('file', 1);
    expect(store.watermark('file')).toBe(2);
    await store.ackDelivered('stdout', 1);
    await store.close();
    const again = await reopen({ sinks: ['file', 'stdout'] });
    expect(again.watermark('file')).toBe(2);
    expect(again.readOutbox('stdout', 10).map((e) => e.result_id)).toEqual(['b', 'c']);
    // Entry 1 (a batch of its own) was acknowledged by both sinks: gone. Entry 2 is, but its batch
    // still holds 3: stored, yet below the pruned floor.
    expect([...again.backend.range('outbox')].map((e) => e.key)).toEqual([3]);
    await again.ackDelivered('file', 3);
    await again.ackDelivered('stdout', 2);
    expect(inspectStore(again).outbox).toEqual({ length: 1, last_oseq: 3, backlog: { file: 0, stdout: 1 } });
    expect(again.readOutbox('stdout', 10).map((e) => e.result_id)).toEqual(['c']);
    await expect(again.ackDelivered('file', 9)).rejects.toThrow(RangeError);
    await again.close();
  });

  it('a sink added later starts at the oldest entry still retained', async () => {
    const reopen = harness(tempDir());
    const store = await reopen({ sinks: ['file'] });
    await store.commitBatch({ records: [], outbox: [result('a'), result('b')] });
    await store.ackDelivered('file', 1);
    await store.close();
    const again = await reopen({ sinks: ['file', 'webhook'] });
    expect(again.readOutbox('webhook', 10).map((e) => e.result_id)).toEqual(['b']);
    await again.close();
  });

  it('remembers idempotency answers: pending, committed, and across a reopen', async () => {
    const reopen = harness(tempDir());
    const store = await reopen();
    const commit = store.commitBatch({ records: [draft(1)], idempotency: { key: 'req-1', answer: { accepted: 3 }, at: 5000 } });
    const pending = store.lookupIdempotency('req-1', 5000);
    expect(pending?.status).toBe('pending');
    await commit;
    if (pending?.status === 'pending') await expect(pending.answer).resolves.toEqual({ accepted: 3 });
    expect(store.lookupIdempotency('req-1', 5001)).toEqual({ status: 'committed', answer: { accepted: 3 } });
    await expect(store.commitBatch({ records: [draft(2)], idempotency: { key: 'req-1', answer: {}, at: 5002 } })).rejects.toThrow(/already committed/);
    expect(store.lastSeq).toBe(1);
    expect(store.lookupIdempotency('req-2', 5001)).toBeUndefined();
    await store.close();
    const again = await reopen();
    expect(again.lookupIdempotency('req-1', 6000)).toEqual({ status: 'committed', answer: { accepted: 3 } });
    await again.close();
  });

  it('answers a request retried after a crash that followed its commit, without applying it again', async () => {
    const reopen = harness(tempDir());
    const store = await reopen({
      crashHook: (p) => {
        if (p === 'after-commit') throw new Error('crash');
      },
    });
    await expect(store.commitBatch({ records: [draft(1)], idempotency: { key: 'req', answer: { accepted: 1 }, at: 10 } })).rejects.toThrow('crash');
    await store.close();
    const again = await reopen();
    expect(again.lookupIdempotency('req', 20)).toEqual({ status: 'committed', answer: { accepted: 1 } });
    expect(again.lastSeq).toBe(1);
    await again.close();
  });

  it('forgets idempotency keys past the age or count bound', async () => {
    const reopen = harness(tempDir());
    const store = await reopen({ idempotency: { maxAgeMs: 1000, maxKeys: 3 } });
    for (let i = 0; i < 6; i++) await store.commitBatch({ records: [], idempotency: { key: `k${i}`, answer: i, at: 100 * i } });
    expect(store.idempotencyKeyCount()).toBe(3);
    expect(store.lookupIdempotency('k1', 600)).toBeUndefined();
    expect(store.lookupIdempotency('k5', 600)).toEqual({ status: 'committed', answer: 5 });
    // Past its age a key is not answered even before pruning reaches it, and can be used again.
    expect(store.lookupIdempotency('k3', 1400)).toBeUndefined();
    await store.commitBatch({ records: [], idempotency: { key: 'k3', answer: 'again', at: 1400 } });
    await store.commitBatch({ records: [], idempotency: { key: 'k9', answer: 9, at: 1500 } });
    expect(store.lookupIdempotency('k3', 2000)).toEqual({ status: 'committed', answer: 'again' });
    await store.close();
  });

  it('keeps the previous snapshot and the journal after it; deletes what only older ones needed', async () => {
    const reopen = harness(tempDir());
    const store = await reopen();
    const snap = (seq: number) => store.writeSnapshot({ seq, at: seq, kinds: [{ kind: 'counter', version: 2, entries: [[`k${seq}`, [seq, 0]]] }], definitions: {} });
    for (let i = 1; i <= 4; i++) await store.commitBatch({ records: [draft(i)] });
    await snap(2);
    expect(journal(store)).toEqual([1, 2, 3, 4]);
    await snap(4);
    expect(journal(store)).toEqual([3, 4]);
    expect(await snap(4)).toBe(false);
    await store.commitBatch({ records: [draft(5)] });
    await snap(5);
    expect(journal(store)).toEqual([5]);
    const base = store.loadSnapshotBase('fail');
    expect(base.seq).toBe(5);
    expect(base.snapshot?.chunks).toEqual([{ kind: 'counter', entries: [['k5', [5, 0]]] }]);
    await expect(store.writeSnapshot({ seq: 9, at: 0, kinds: [], definitions: {} })).rejects.toThrow(RangeError);
    await store.close();
  });

  it('falls back to the previous snapshot when the newest is damaged', async () => {
    const reopen = harness(tempDir());
    const store = await reopen();
    for (let i = 1; i <= 4; i++) await store.commitBatch({ records: [draft(i)] });
    await store.writeSnapshot({ seq: 2, at: 2, kinds: [{ kind: 'counter', version: 2, entries: [['a', [1, 1]]] }], definitions: {} });
    await store.writeSnapshot({ seq: 4, at: 4, kinds: [{ kind: 'counter', version: 2, entries: [['b', [2, 2]]] }], definitions: {} });
    const [chunk] = [...store.backend.range('snapshots', { start: [4, 1], end: [4, 2] })];
    const flipped = Uint8Array.from(chunk?.value ?? []);
    flipped[flipped.length - 1] = (flipped[flipped.length - 1] ?? 0) ^ 0xff;
    await store.backend.write((w) => w.put('snapshots', [4, 1], flipped));
    await store.close();
    const again = await reopen();
    const base = again.loadSnapshotBase('fail');
    expect(base.unreadable).toEqual([4]);
    expect(base.seq).toBe(2);
    expect(base.snapshot?.chunks[0]?.entries).toEqual([['a', [1, 1]]]);
    expect(journal(again)).toEqual([3, 4]);
    await again.close();
  });

  it('refuses to start from a damaged snapshot whose fallback journal is gone, unless told to skip', async () => {
    const reopen = harness(tempDir());
    const store = await reopen();
    for (let i = 1; i <= 3; i++) {
      await store.commitBatch({ records: [draft(i)] });
      await store.writeSnapshot({ seq: i, at: i, kinds: [], definitions: {} });
    }
    await store.backend.write((w) => {
      w.put('meta', 'snap:00000000000003', Uint8Array.of(0xc1));
      w.put('meta', 'snap:00000000000002', Uint8Array.of(0xc1));
    });
    expect(() => store.loadSnapshotBase('fail')).toThrow(StateCorruptionError);
    expect(() => store.loadSnapshotBase('fail')).toThrow(/snapshot 3 is unreadable/);
    expect(store.loadSnapshotBase('skip')).toEqual({ snapshot: undefined, unreadable: [3, 2], seq: 2 });
    await store.close();
  });

  it('an unreadable journal batch stops replay naming its first sequence, unless skipped whole', async () => {
    const reopen = harness(tempDir());
    const store = await reopen();
    await store.commitBatch({ records: [draft(1)] });
    await store.commitBatch({ records: [draft(2), draft(3)] });
    await store.commitBatch({ records: [draft(4)] });
    // The batch of records 2 and 3 is stored under its last sequence.
    await store.backend.write((w) => w.put('journal', 3, Uint8Array.of(0x93, 0xc1)));
    const err = (() => {
      try {
        store.replay(0, () => undefined, 'fail');
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(err).toBeInstanceOf(StateCorruptionError);
    expect(err).toMatchObject({ code: 'journal_record_unreadable', seq: 2 });
    expect(String(err)).toMatch(/journal record 2 is unreadable \(with the rest of its batch, through 3/);
    const seen: number[] = [];
    expect(store.replay(0, (r) => seen.push(r.seq), 'skip')).toEqual({ replayed: 2, skipped: [2, 3], lastSeq: 4 });
    expect(seen).toEqual([1, 4]);
    // Starting inside the batch, or at its start, names the same first sequence.
    expect(() => store.replay(2, () => undefined, 'fail')).toThrow(/journal record 2 is unreadable/);
    expect(store.replay(2, () => undefined, 'skip', 1)).toEqual({ replayed: 0, skipped: [3], lastSeq: 3 });
    await store.close();
  });

  it('an interrupted snapshot write leaves the previous snapshot in charge', async () => {
    const reopen = harness(tempDir());
    let crashAt: string | undefined;
    const store = await reopen({
      snapshotChunkSize: 1,
      crashHook: (p) => {
        if (p === crashAt) throw new Error(`crash at ${p}`);
      },
    });
    for (let i = 1; i <= 4; i++) await store.commitBatch({ records: [draft(i)] });
    const entries = (n: number): [string, unknown][] => [['a', [n, 0]], ['b', [n, 1]], ['c', [n, 2]]];
    await store.writeSnapshot({ seq: 2, at: 2, kinds: [{ kind: 'counter', version: 2, entries: entries(2) }], definitions: {} });
    crashAt = 'mid-snapshot';
    await expect(store.writeSnapshot({ seq: 4, at: 4, kinds: [{ kind: 'counter', version: 2, entries: entries(4) }], definitions: {} })).rejects.toThrow(/crash/);
    await store.close();
    const again = await reopen();
    const base = again.loadSnapshotBase('fail');
    expect(base.seq).toBe(2);
    expect(base.snapshot?.chunks.flatMap((c) => c.entries)).toEqual(entries(2));
    expect(journal(again)).toEqual([1, 2, 3, 4]);
    await again.close();
  });
});
