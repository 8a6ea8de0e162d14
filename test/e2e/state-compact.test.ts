// `sigmad state compact --state-db DIR`: the offline compaction the daemon does not run itself.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { openLmdbStateStore } from '../../state/index.js';
import { ensureBuilt, MAIN, tempDir } from './harness.js';

const run = (args: readonly string[]) =>
  promisify(execFile)(process.execPath, [MAIN, ...args]).then(
    ({ stdout }) => ({ code: 0, stdout, stderr: '' }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );

// Build dist/ (when stale) outside the tests' own time budgets.
beforeAll(ensureBuilt, 180_000);

describe('sigmad state compact', () => {
  it('shrinks a state directory whose old journal was deleted, and refuses a directory without one', async () => {
    const dir = join(tempDir('compact'), 'state');
    const store = await openLmdbStateStore(dir);
    const big = 'x'.repeat(500);
    for (let b = 0; b < 10; b++) {
      await store.commitBatch({ records: Array.from({ length: 500 }, (_, i) => ({ at: b, kind: 'counter', key: `k${i}`, event: { big } })) });
    }
    await store.writeSnapshot({ seq: 4000, at: 1, kinds: [], definitions: {} });
    await store.writeSnapshot({ seq: 5000, at: 2, kinds: [], definitions: {} });
    await store.close();

    const done = await run(['state', 'compact', '--state-db', dir]);
    expect(done.code).toBe(0);
    const { beforeBytes, afterBytes } = JSON.parse(done.stdout) as { beforeBytes: number; afterBytes: number };
    expect(afterBytes).toBeLessThan(beforeBytes / 2);

    const missing = await run(['state', 'compact', '--state-db', join(dir, 'nothing')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no state database');
  }, 60_000);
});
