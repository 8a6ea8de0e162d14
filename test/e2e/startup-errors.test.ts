// Exit codes at start-up: 3 for bad flags or config, 2 when no rule loads.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, FIXTURES, startDaemon, tempDir } from './harness.js';

const start = (args: readonly string[]) => startDaemon(args, { noWait: true });

// Build dist/ (when stale) outside the tests' own time budgets.
beforeAll(ensureBuilt, 180_000);

describe('start-up failures', () => {
  it('exits 3 on an unknown flag', async () => {
    expect(await (await start(['--rules', join(FIXTURES, 'rules'), '--no-such-flag'])).exited).toBe(3);
  });

  it('exits 3 on an invalid setting', async () => {
    expect(await (await start(['--rules', join(FIXTURES, 'rules'), '--batch-size', 'many'])).exited).toBe(3);
  });

  it('exits 3 on an unusable listen address', async () => {
    expect(await (await start(['--rules', join(FIXTURES, 'rules'), '--api-addr', 'localhost:1'])).exited).toBe(3);
  });

  it('exits 2 when no rule loads', async () => {
    expect(await (await start(['--rules', tempDir('empty-rules'), '--api-addr', '127.0.0.1:0'])).exited).toBe(2);
  });

  it('exits 2 when no rule loads, closing the listener it bound first and unlinking its unix socket', async () => {
    const socket = join(tempDir('sock'), 'api.sock');
    const daemon = await start(['--rules', tempDir('empty-rules'), '--api-addr', `unix://${socket}`]);
    expect(await daemon.exited).toBe(2);
    expect(daemon.logs.some((l) => l.includes('"msg":"listening"'))).toBe(true);
    expect(existsSync(socket)).toBe(false);
  });
});
