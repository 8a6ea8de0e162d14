// SIGTERM and SIGINT: stop accepting, answer what is open (tail sessions end with their summary, a
// partly admitted POST says what it committed), drain what was accepted, flush the sinks, exit 0.
// On both HTTP adapters.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { send } from '../http/client.js';
import { ensureBuilt, FIXTURES, ndjson, readNdjson, startDaemon, tempDir, waitFor } from './harness.js';
import type { RunningDaemon } from './harness.js';

// Build dist/ (when stale) outside the tests' own time budgets.
beforeAll(ensureBuilt, 180_000);

const RULES = join(FIXTURES, 'rules');

async function metric(daemon: RunningDaemon, name: string): Promise<number> {
  const text = (await daemon.request({ method: 'GET', url: '/metrics' })).text;
  return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN);
}

describe.each(['uws', 'node'] as const)('graceful shutdown (%s adapter)', (adapter) => {
  const env = { SVC_API__ADAPTER: adapter };

  it.each(['SIGTERM', 'SIGINT'] as const)('delivers every accepted detection before exiting 0 on %s', async (signal) => {
    const out = join(tempDir('drain'), 'out.ndjson');
    const daemon = await startDaemon(['--rules', RULES, '--input', 'http', '--api-addr', '127.0.0.1:0', '--output', `file://${out}`, '--batch-size', '7'], { env });
    expect(daemon.logs.some((l) => l.includes(`"adapter":"${adapter}"`))).toBe(true);
    const events = Array.from({ length: 500 }, (_, i) => ({ CommandLine: `whoami ${i}` }));
    const answers = await Promise.all([0, 1, 2, 3, 4].map((k) => daemon.json({ method: 'POST', url: '/api/v1/events', body: ndjson(events.slice(k * 100, k * 100 + 100)) })));
    expect(answers.map((a) => a.body['accepted'])).toEqual([100, 100, 100, 100, 100]);
    daemon.kill(signal);
    expect(await daemon.exited).toBe(0);
    const lines = readNdjson(out);
    expect(lines).toHaveLength(500);
    expect(new Set(lines.map((l) => l['result_id'])).size).toBe(500);
    expect(daemon.logs.some((l) => l.includes('"stopped"'))).toBe(true);
  });

  it('ends an open tail session with its summary and answers a partly admitted POST with what it committed', async () => {
    const out = join(tempDir('drain'), 'out.ndjson');
    const daemon = await startDaemon(
      ['--rules', RULES, '--input', 'http', '--enable-tail', '--api-addr', '127.0.0.1:0', '--output', `file://${out}`, '--buffer-size', '2', '--batch-size', '1'],
      { env },
    );
    const tail = send(daemon.address, { method: 'GET', url: '/api/v1/detections/stream' });
    await waitFor(async () => ((await metric(daemon, 'svc_tail_active_sessions')) === 1 ? true : undefined), 10_000, 'the tail session');
    // Far more lines than the queue holds: the POST is admitted two lines at a time while it runs.
    const post = daemon.json({ method: 'POST', url: '/api/v1/events', body: ndjson(Array.from({ length: 20_000 }, () => ({ CommandLine: 'whoami' }))) });
    await waitFor(async () => ((await metric(daemon, 'svc_events_processed_total')) > 10 ? true : undefined), 10_000, 'the POST to be admitted in part');
    daemon.kill('SIGTERM');
    const [answer, stream] = await Promise.all([post, tail]);
    expect(await daemon.exited).toBe(0);
    const delivered = readNdjson(out).length;
    if (answer.status === 503) expect(answer.body).toEqual({ error: 'event channel closed', accepted: delivered });
    else expect(answer).toEqual({ status: 200, body: { accepted: 20_000, parse_errors: 0 } });
    expect(stream.status).toBe(200);
    const lines = stream.text.trim().split('\n');
    expect(JSON.parse(lines.at(-1) ?? '')).toMatchObject({ svc_tail_summary: { dropped: 0 } });
    expect(lines.length - 1).toBeLessThanOrEqual(delivered);
  }, 60_000);
});
