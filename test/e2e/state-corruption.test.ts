// An unreadable journal record stops start-up with a message naming its sequence (exit 3) unless the
// operator passes --state-recover skip, which starts and keeps serving. The journal holds one value
// per committed batch, keyed by its last sequence; the message names the batch's first. A record
// that decodes but does not fit its kind (unknown kind, a group event the schema rejects, a
// malformed `$definitions` record) is treated the same way, named by its own sequence.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { inspectStateDir } from '../../state/inspect-state.js';
import { LmdbBackend } from '../../state/lmdb-backend.js';
import { JournalBatch } from '../../state/records.js';
import type { JournalRecord } from '../../state/records.js';
import { packValue, storedCodec } from '../../state/value-codec.js';
import { ensureBuilt, FIXTURES, ndjson, startDaemon, tempDir, waitFor } from './harness.js';

beforeAll(ensureBuilt, 180_000);

describe('state corruption at start-up', () => {
  it('falls back past a torn snapshot to the previous one plus its journal, and says so', { timeout: 60_000 }, async () => {
    const dir = tempDir('torn');
    const state = join(dir, 'state');
    const args = ['--rules', join(FIXTURES, 'rules'), '--input', 'http', '--api-addr', '127.0.0.1:0', '--output', `file://${join(dir, 'out.ndjson')}`, '--state-db', state, '--snapshot-every', '1'];
    const logon = (s: number, host: string) => ({ EventID: 4625, Computer: host, '@timestamp': `2024-05-01T00:00:0${s}Z` });
    const groups = async (d: Awaited<ReturnType<typeof startDaemon>>) => (await d.json({ method: 'GET', url: '/api/v1/correlations/state' })).body['groups'];

    const first = await startDaemon(args);
    for (const [s, host] of [[1, 'h1'], [2, 'h2'], [3, 'h1']] as const) {
      expect((await first.request({ method: 'POST', url: '/api/v1/events', body: ndjson([logon(s, host)]) })).status).toBe(200);
    }
    // Each batch is followed by a snapshot (written after the answer): wait for the one of the last.
    const last = await waitFor(async () => {
      const r = await inspectStateDir(state);
      return r.snapshot !== null && r.snapshot.seq === r.journal.last_seq && r.snapshot.previous_seq !== null ? r.snapshot : undefined;
    }, 10_000, 'the last snapshot');
    const before = await groups(first);
    expect(before).not.toEqual([]);
    first.kill('SIGKILL');
    await first.exited;

    // Tear the newest snapshot: flip the last byte of its first chunk (CRC-framed).
    const lmdb = new LmdbBackend(state);
    const [chunk] = [...lmdb.range('snapshots', { start: [last.seq, 0], end: [last.seq + 1, 0] })];
    expect(chunk).toBeDefined();
    const torn = Uint8Array.from(chunk?.value ?? []);
    torn[torn.length - 1] = (torn[torn.length - 1] ?? 0) ^ 0xff;
    await lmdb.write((w) => w.put('snapshots', chunk?.key ?? [], torn));
    await lmdb.close();

    const second = await startDaemon(args);
    expect(await groups(second)).toEqual(before);
    const logs = second.logs.map((l) => JSON.parse(l) as { msg?: string; snapshots?: number[]; fromSeq?: number; snapshotSeq?: number; replayed?: number });
    expect(logs.find((l) => l.msg === 'unreadable snapshots passed over')).toMatchObject({ snapshots: [last.seq], fromSeq: last.previous_seq });
    expect(logs.find((l) => l.msg === 'state recovered')).toMatchObject({ snapshotSeq: last.previous_seq });
    second.kill();
    expect(await second.exited).toBe(0);
  });

  it('refuses to start on an unreadable journal record unless --state-recover skip', async () => {
    const dir = tempDir('corrupt');
    const state = join(dir, 'state');
    const args = ['--rules', join(FIXTURES, 'rules'), '--input', 'http', '--api-addr', '127.0.0.1:0', '--output', `file://${join(dir, 'out.ndjson')}`, '--state-db', state];
    const logon = (s: number) => ({ EventID: 4625, Computer: 'h1', '@timestamp': `2024-05-01T00:00:0${s}Z` });

    const first = await startDaemon(args);
    for (const s of [1, 2, 3]) {
      expect((await first.request({ method: 'POST', url: '/api/v1/events', body: ndjson([logon(s)]) })).status).toBe(200);
    }
    // A crash leaves the journal after the last snapshot in place.
    first.kill('SIGKILL');
    await first.exited;

    const lmdb = new LmdbBackend(state);
    const seqs = [...lmdb.range('journal', {})].map((e) => e.key as number);
    expect(seqs.length).toBeGreaterThan(0);
    const bad = seqs[seqs.length - 1] as number;
    const firstOfBatch = (seqs[seqs.length - 2] ?? 0) + 1;
    await lmdb.write((w) => w.put('journal', bad, Uint8Array.of(0x93, 0xc1)));
    await lmdb.close();

    const refused = await startDaemon(args, { noWait: true });
    expect(await refused.exited).toBe(3);
    expect(refused.logs.join('\n')).toContain(`journal record ${firstOfBatch} is unreadable (with the rest of its batch, through ${bad}`);

    const skipping = await startDaemon([...args, '--state-recover', 'skip']);
    expect((await skipping.json({ method: 'GET', url: '/readyz' })).status).toBe(200);
    skipping.kill();
    expect(await skipping.exited).toBe(0);
  });

  it('refuses a journal record that decodes but does not fit its kind unless --state-recover skip', { timeout: 60_000 }, async () => {
    const dir = tempDir('unfit');
    const state = join(dir, 'state');
    const args = ['--rules', join(FIXTURES, 'rules'), '--input', 'http', '--api-addr', '127.0.0.1:0', '--output', `file://${join(dir, 'out.ndjson')}`, '--state-db', state];
    const logon = (s: number) => ({ EventID: 4625, Computer: 'h1', '@timestamp': `2024-05-01T00:00:0${s}Z` });

    const first = await startDaemon(args);
    expect((await first.request({ method: 'POST', url: '/api/v1/events', body: ndjson([logon(1), logon(2)]) })).status).toBe(200);
    first.kill('SIGKILL');
    await first.exited;

    const codec = storedCodec(JournalBatch);
    const lmdb = new LmdbBackend(state);
    // Decoded while iterating: a value read may be a view into a reused buffer.
    const original: { key: number; batch: JournalBatch }[] = [];
    for (const e of lmdb.range('journal', {})) original.push({ key: e.key as number, batch: codec.decode(e.value) as JournalBatch });
    await lmdb.close();
    const records = original.flatMap((b) => b.batch.records);
    const pick = (kind: string, nth = 0): number => (records.filter((r) => r.kind === kind)[nth] as JournalRecord).seq;
    /** Rewrites the journal with the records of `seqs` changed, every other record as it was. */
    const tamper = async (changes: ReadonlyMap<number, (r: JournalRecord) => JournalRecord>): Promise<void> => {
      const w = new LmdbBackend(state);
      await w.write((tx) => {
        for (const { key, batch } of original) tx.put('journal', key, packValue({ ...batch, records: batch.records.map((r) => changes.get(r.seq)?.(r) ?? r) }));
      });
      await w.close();
    };
    const cases = new Map<number, [(r: JournalRecord) => JournalRecord, string]>([
      [pick('$definitions'), [(r) => ({ ...r, event: { hashes: 'none' } }), 'is a malformed $definitions record']],
      [pick('corr'), [(r) => ({ ...r, event: { kind: 'hit', rules: 1 } }), 'is not a correlation group event']],
      [pick('corr', 1), [(r) => ({ ...r, kind: 'corr-future' }), "has an unknown kind 'corr-future'"]],
    ]);
    for (const [seq, [change, why]] of cases) {
      await tamper(new Map([[seq, change]]));
      const refused = await startDaemon(args, { noWait: true });
      expect(await refused.exited).toBe(3);
      expect(refused.logs.join('\n')).toContain(`journal record ${seq} ${why} (start with --state-recover skip to skip it)`);
    }

    await tamper(new Map([...cases].map(([seq, [change]]) => [seq, change])));
    const skipping = await startDaemon([...args, '--state-recover', 'skip']);
    expect((await skipping.json({ method: 'GET', url: '/readyz' })).status).toBe(200);
    const warning = skipping.logs.map((l) => JSON.parse(l) as { msg?: string; records?: number[] }).find((l) => l.msg === 'journal records skipped (--state-recover skip)');
    expect(warning?.records).toEqual([...cases.keys()].sort((a, b) => a - b));
    skipping.kill();
    expect(await skipping.exited).toBe(0);
  });
});
