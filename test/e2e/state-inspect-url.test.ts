// `sigmad state inspect --url URL --token-env VAR` against a running daemon's API (GET /api/v1/state):
// the same report as inspecting its directory; without the token the command fails naming the 401.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, FIXTURES, MAIN, ndjson, startDaemon, tempDir, type RunningDaemon } from './harness.js';

beforeAll(ensureBuilt, 180_000);

async function sigmad(args: readonly string[], env: Readonly<Record<string, string>> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return promisify(execFile)(process.execPath, [MAIN, ...args], { env: { ...process.env, ...env } }).then(
    (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );
}

describe('sigmad state inspect --url', () => {
  const stateDb = join(tempDir('sigmad-inspect-url-'), 'state');
  let daemon: RunningDaemon;
  let url: string;
  beforeAll(async () => {
    daemon = await startDaemon(['--rules', join(FIXTURES, 'rules'), '--input', 'http', '--api-addr', '127.0.0.1:0', '--state-db', stateDb], {
      env: { T_SHIP: 'ship-secret', T_DASH: 'dash-secret', SVC_API__AUTH__TOKENS: '[{name: shipper, token_env: T_SHIP, role: ingest}, {name: dashboard, token_env: T_DASH, role: reader}]' },
    });
    if (daemon.address.kind !== 'tcp') throw new Error('expected a TCP listener');
    url = `http://127.0.0.1:${daemon.address.port}`;
  });
  afterAll(async () => {
    daemon.kill();
    await daemon.exited;
  });

  it('prints the running daemon\'s state report, the same as inspecting its directory', async () => {
    const posted = await daemon.json({ method: 'POST', url: '/api/v1/events', body: ndjson([{ CommandLine: 'whoami' }, { EventID: 1 }]), headers: { authorization: 'Bearer ship-secret' } });
    expect(posted.status).toBe(200);
    const viaUrl = await sigmad(['state', 'inspect', '--url', url, '--token-env', 'T_READ'], { T_READ: 'dash-secret' });
    expect(viaUrl.code).toBe(0);
    const report = JSON.parse(viaUrl.stdout) as Record<string, unknown>;
    expect(report).toMatchObject({ input_ordinal: 2, journal: { last_seq: expect.any(Number) }, outbox: { last_oseq: expect.any(Number) } });
    const viaDir = JSON.parse((await sigmad(['state', 'inspect', '--state-db', stateDb])).stdout) as Record<string, unknown>;
    expect(Object.keys(report).sort()).toEqual(Object.keys(viaDir).sort());
    expect(report['input_ordinal']).toBe(viaDir['input_ordinal']);
  });

  it('fails with exit 1 naming the answer without a token, and exit 2 when the token variable is unset', async () => {
    const refused = await sigmad(['state', 'inspect', '--url', url]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/answered 401: .*missing or invalid bearer token/);
    const unset = await sigmad(['state', 'inspect', '--url', url, '--token-env', 'NO_SUCH_VAR_SET']);
    expect(unset.code).toBe(2);
    expect(unset.stderr).toContain('NO_SUCH_VAR_SET');
  });
});
