// stdin mode: events in on stdin, results on stdout, exit 0 at EOF.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, FIXTURES, ndjson, startDaemon } from './harness.js';

// Build dist/ (when stale) outside the tests' own time budgets.
beforeAll(ensureBuilt, 180_000);

describe('stdin input', () => {
  it('evaluates piped events, writes results to stdout and exits 0 at EOF', async () => {
    const daemon = await startDaemon(['--rules', join(FIXTURES, 'rules'), '--input', 'stdin', '--api-addr', '127.0.0.1:0'], { stdin: 'pipe' });
    const ingest = await daemon.json({ method: 'POST', url: '/api/v1/events', body: '{}\n' });
    expect(ingest.status).toBe(404);
    expect(ingest.body).toMatchObject({ error: 'event ingestion not enabled (start with --input http)' });
    daemon.proc.stdin?.end(ndjson([{ CommandLine: 'whoami' }, { CommandLine: 'dir' }, { CommandLine: 'whoami /priv' }]));
    expect(await daemon.exited).toBe(0);
    const results = daemon.stdout.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(results.map((r) => r['result_id'])).toEqual(['e000000000000-0', 'e000000000002-0']);
    expect(results.every((r) => r['rule_title'] === 'Whoami Execution')).toBe(true);
  });
});
