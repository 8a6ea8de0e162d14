// HTTP ingest → detections and correlations in a file sink, with deterministic result ids.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, FIXTURES, ndjson, readNdjson, startDaemon, tempDir, waitFor } from './harness.js';
import type { RunningDaemon } from './harness.js';

// Build dist/ (when stale) outside the tests' own time budgets.
beforeAll(ensureBuilt, 180_000);

describe('HTTP ingest into a file sink', () => {
  let daemon: RunningDaemon;
  let out: string;
  let dlq: string;
  beforeAll(async () => {
    const dir = tempDir('ingest');
    out = join(dir, 'out.ndjson');
    dlq = join(dir, 'dlq.ndjson');
    daemon = await startDaemon([
      '--rules', join(FIXTURES, 'rules'), '--input', 'http', '--input-format', 'json', '--api-addr', '127.0.0.1:0',
      '--output', `file://${out}`, '--dlq', `file://${dlq}`,
    ]);
  });
  afterAll(async () => {
    daemon.kill();
    await daemon.exited;
  });

  it('writes detections and the correlation they complete, each with a result id', async () => {
    const events = [1, 2, 3].flatMap((i) => [
      { EventID: 4625, Computer: 'h1', '@timestamp': `2024-01-01T00:00:0${i}Z` },
      { CommandLine: 'cmd /c whoami' },
    ]);
    const res = await daemon.json({ method: 'POST', url: '/api/v1/events', body: ndjson(events) });
    expect(res.body).toEqual({ accepted: 6, parse_errors: 0 });
    const lines = await waitFor(() => {
      const l = readNdjson(out);
      return l.length >= 4 ? l : undefined;
    });
    expect(lines.map((l) => l['rule_title'])).toEqual([
      'Whoami Execution',
      'Whoami Execution',
      'Many Failed Logons On One Host',
      'Whoami Execution',
    ]);
    expect(lines.map((l) => l['result_id'])).toEqual(['e000000000001-0', 'e000000000003-0', 'e000000000004-0', 'e000000000005-0']);
    expect(lines[2]).toMatchObject({ correlation_type: 'event_count', aggregated_value: 3, group_key: [['Computer', 'h1']] });
  });

  it('lists live correlation groups, filtered by correlation (id, name or title) and by group substring', async () => {
    const logons = ['h2', 'web-h3', 'web-h3'].map((c, i) => ({ EventID: 4625, Computer: c, '@timestamp': `2024-01-01T00:01:0${i}Z` }));
    await daemon.json({ method: 'POST', url: '/api/v1/events', body: ndjson(logons) });
    const state = async (query: string) => (await daemon.json({ method: 'GET', url: `/api/v1/correlations/state${query}` })).body;
    const all = await waitFor(async () => {
      const body = await state('');
      return (body['groups'] as unknown[]).length >= 2 ? body : undefined;
    });
    expect(all['count']).toBe((all['groups'] as unknown[]).length);
    const web = await state('?id=many_failed_logons&group=web');
    expect(web['groups']).toEqual([expect.objectContaining({ correlation_title: 'Many Failed Logons On One Host', group_key_display: 'Computer=web-h3', entries: 2, met: false })]);
    expect(web['count']).toBe(1);
    expect((await state('?id=Many%20Failed%20Logons%20On%20One%20Host&group=h2'))['groups']).toHaveLength(1);
    expect(await state('?id=no-such-correlation')).toMatchObject({ correlations: [], groups: [], count: 0 });
    expect(await state('?group=no-such-host')).toMatchObject({ groups: [], count: 0 });
  });

  it('answers a repeated Idempotency-Key with the first answer and commits nothing again', async () => {
    const body = ndjson([{ CommandLine: 'whoami /all' }, 'not an object']);
    const headers = { 'idempotency-key': 'batch-7' };
    const metric = async (name: string): Promise<number> => {
      const text = (await daemon.request({ method: 'GET', url: '/metrics' })).text;
      return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
    };
    const processed = await metric('svc_events_processed_total');
    const first = await daemon.json({ method: 'POST', url: '/api/v1/events', body, headers });
    const again = await daemon.json({ method: 'POST', url: '/api/v1/events', body, headers });
    expect(first.body).toEqual({ accepted: 2, parse_errors: 1 });
    expect(again.body).toEqual(first.body);
    // An answer comes only after its commit: one decoded event more means the repeat committed nothing.
    expect(await metric('svc_events_processed_total')).toBe(processed + 1);
    // Committed results reach the sink queue before the answer; once it is empty, all of them are in the file.
    await waitFor(async () => ((await metric('svc_output_queue_depth')) === 0 ? true : undefined));
    const lines = readNdjson(out);
    expect(lines.filter((l) => String(JSON.stringify(l['matched_fields'])).includes('/all'))).toHaveLength(1);
    expect(lines).toHaveLength(5);
  });

  it('counts parse errors and sends the raw line to the DLQ', async () => {
    await daemon.json({ method: 'POST', url: '/api/v1/events', body: '{broken\n' });
    const entries = await waitFor(() => {
      const e = readNdjson(dlq).filter((x) => x['original_event'] === '{broken');
      return e.length > 0 ? e : undefined;
    });
    expect(entries[0]).toMatchObject({ error: 'parse error' });
    expect(String(entries[0]?.['timestamp'])).toMatch(/\+00:00$/);
    const metrics = await daemon.request({ method: 'GET', url: '/metrics' });
    expect(metrics.text).toMatch(/^svc_events_parse_errors_total [2-9]/m);
    expect(metrics.text).toMatch(/^svc_detection_matches_by_rule_total\{rule_title="Whoami Execution",level="high"\} 4$/m);
    expect(metrics.text).toMatch(/^svc_correlation_matches_by_rule_total\{rule_title="Many Failed Logons On One Host",level="medium",correlation_type="event_count"\} 1$/m);
  });
});
