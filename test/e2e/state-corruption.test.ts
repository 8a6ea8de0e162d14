// An unreadable journal record stops start-up with a message naming its sequence (exit 3) unless the
// operator passes --state-recover skip, which starts and keeps serving. The journal holds one value
// per committed batch, keyed by its last sequence; the message names the batch's first.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { LmdbBackend } from '../../src/state/lmdb-backend.js';
import { ensureBuilt, FIXTURES, ndjson, startDaemon, tempDir } from './harness.js';

beforeAll(ensureBuilt, 180_000);

describe('state corruption at start-up', () => {
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
});
