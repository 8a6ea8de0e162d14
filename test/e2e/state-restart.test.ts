// --state-db across graceful restarts: correlation windows survive.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, FIXTURES, ndjson, readNdjson, startDaemon, tempDir, waitFor } from './harness.js';

// Build dist/ (when stale) outside the tests' own time budgets.
beforeAll(ensureBuilt, 180_000);

describe('state across restarts', () => {
  it('keeps correlation windows over a restart', async () => {
    const dir = tempDir('restart');
    const out = join(dir, 'out.ndjson');
    const args = ['--rules', join(FIXTURES, 'rules'), '--input', 'http', '--api-addr', '127.0.0.1:0', '--output', `file://${out}`, '--state-db', join(dir, 'state')];
    const logon = (s: number) => ({ EventID: 4625, Computer: 'h9', '@timestamp': `2024-05-01T00:00:0${s}Z` });
    const groups = async (d: Awaited<ReturnType<typeof startDaemon>>) => ((await d.json({ method: 'GET', url: '/api/v1/correlations/state' })).body['groups'] as unknown[]).length;

    const first = await startDaemon(args);
    await first.request({ method: 'POST', url: '/api/v1/events', body: ndjson([logon(1), logon(2)]) });
    first.kill();
    expect(await first.exited).toBe(0);

    const second = await startDaemon(args);
    expect(await groups(second)).toBe(1);
    await second.request({ method: 'POST', url: '/api/v1/events', body: ndjson([logon(3)]) });
    await waitFor(() => (readNdjson(out).some((l) => l['rule_title'] === 'Many Failed Logons On One Host') ? true : undefined));
    second.kill();
    expect(await second.exited).toBe(0);
  });
});
