// The harness stops every daemon a test started when that test ends, whatever happened: a test that
// fails and one that times out leave no process behind (issue 20: an orphaned daemon outlived a suite).
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, FIXTURES, startDaemon, waitFor } from './harness.js';

beforeAll(ensureBuilt, 180_000);

const ARGS = ['--rules', join(FIXTURES, 'rules'), '--input', 'http', '--api-addr', '127.0.0.1:0'];

function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('daemon cleanup', () => {
  const pids: number[] = [];

  it.fails('(a test that fails while its daemon runs)', async () => {
    const d = await startDaemon(ARGS, { listeningOnly: true });
    if (d.proc.pid !== undefined) pids.push(d.proc.pid);
    expect('the daemon').toBe('stopped by the test');
  });

  it.fails('(a test that times out while its daemon runs)', { timeout: 8_000 }, async () => {
    const d = await startDaemon(ARGS, { listeningOnly: true });
    if (d.proc.pid !== undefined) pids.push(d.proc.pid);
    await new Promise(() => undefined);
  });

  it('left no daemon process group behind', async () => {
    expect(pids).toHaveLength(2);
    await waitFor(() => (pids.every((p) => !groupAlive(p)) ? true : undefined), 10_000, 'the daemons to be gone');
  });
});
