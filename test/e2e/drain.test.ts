// SIGTERM: stop accepting, drain what was accepted, flush the sinks, exit 0.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, FIXTURES, ndjson, readNdjson, startDaemon, tempDir } from './harness.js';

// Build dist/ (when stale) outside the tests' own time budgets.
beforeAll(ensureBuilt, 180_000);

describe('graceful shutdown', () => {
  it('delivers every accepted detection before exiting 0 on SIGTERM', async () => {
    const out = join(tempDir('drain'), 'out.ndjson');
    const daemon = await startDaemon(['--rules', join(FIXTURES, 'rules'), '--input', 'http', '--api-addr', '127.0.0.1:0', '--output', `file://${out}`, '--batch-size', '7']);
    const events = Array.from({ length: 500 }, (_, i) => ({ CommandLine: `whoami ${i}` }));
    const answers = await Promise.all([0, 1, 2, 3, 4].map((k) => daemon.json({ method: 'POST', url: '/api/v1/events', body: ndjson(events.slice(k * 100, k * 100 + 100)) })));
    expect(answers.map((a) => a.body['accepted'])).toEqual([100, 100, 100, 100, 100]);
    daemon.kill('SIGTERM');
    expect(await daemon.exited).toBe(0);
    const lines = readNdjson(out);
    expect(lines).toHaveLength(500);
    expect(new Set(lines.map((l) => l['result_id'])).size).toBe(500);
    expect(daemon.logs.some((l) => l.includes('"stopped"'))).toBe(true);
  });
});
