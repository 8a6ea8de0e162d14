// A sink whose writes fail (the file sink on /dev/full: every write is ENOSPC) retries with backoff,
// then dead-letters the batch with the error, and the metrics say so; ingest and evaluation go on.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, FIXTURES, ndjson, readNdjson, startDaemon, tempDir, waitFor } from './harness.js';
import type { RunningDaemon } from './harness.js';

beforeAll(ensureBuilt, 180_000);

const metric = (text: string, series: string): number => Number(new RegExp(`^${series.replace(/[{}]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1]);

describe('a sink whose writes fail', () => {
  let daemon: RunningDaemon;
  let dlq: string;
  beforeAll(async () => {
    dlq = join(tempDir('sink-failure'), 'dlq.ndjson');
    daemon = await startDaemon([
      '--rules', join(FIXTURES, 'rules'), '--input', 'http', '--input-format', 'json', '--api-addr', '127.0.0.1:0',
      '--output', 'file:///dev/full', '--dlq', `file://${dlq}`, '--sink-retry-max', '2', '--sink-backoff-base-ms', '5', '--sink-backoff-max-ms', '20',
    ]);
  });
  afterAll(async () => {
    daemon.kill();
    expect(await daemon.exited).toBe(0);
  });

  it('retries, then writes the results to the DLQ with the error and counts the failure', async () => {
    const res = await daemon.json({ method: 'POST', url: '/api/v1/events', body: ndjson([{ CommandLine: 'cmd /c whoami' }]) });
    expect(res.body).toEqual({ accepted: 1, parse_errors: 0 });
    const [line] = await waitFor(() => {
      const lines = existsSync(dlq) ? readNdjson(dlq) : [];
      return lines.length > 0 ? lines : undefined;
    });
    expect(line).toMatchObject({ error: expect.stringMatching(/^sink delivery failure: ENOSPC/), timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    const results = JSON.parse(line?.['original_event'] as string) as Record<string, unknown>[];
    expect(results).toEqual([expect.objectContaining({ rule_title: 'Whoami Execution', result_id: 'e000000000000-0' })]);
    const metrics = (await daemon.request({ method: 'GET', url: '/metrics' })).text;
    expect(metric(metrics, 'svc_sink_retries_total{sink="file"}')).toBe(2);
    expect(metric(metrics, 'svc_sink_delivery_failures_total{sink="file"}')).toBe(1);
    expect(metric(metrics, 'svc_dlq_events_total')).toBe(1);
    expect(metric(metrics, 'svc_detection_matches_total')).toBe(1);
  });
});
