// Contract details of the ingest path: an oversized line lands in the DLQ (bounded), as does a line that
// is not UTF-8; two file sinks share the `file` series without overwriting each other, and the logsource
// router's counters stay zero without --logsource-routing.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_LINE_BYTES, OVERSIZED_HEAD_BYTES } from '../../protocol/decode/index.js';
import { ensureBuilt, FIXTURES, ndjson, readNdjson, startDaemon, tempDir, waitFor } from './harness.js';
import type { RunningDaemon } from './harness.js';

beforeAll(ensureBuilt, 180_000);

describe('ingest contract', () => {
  let daemon: RunningDaemon;
  let outs: [string, string];
  let dlq: string;

  const metrics = async (): Promise<string> => (await daemon.request({ method: 'GET', url: '/metrics' })).text;
  const value = (text: string, series: string): number => Number(new RegExp(`^${series.replace(/[{}]/g, '\\$&')} (\\d+)`, 'm').exec(text)?.[1] ?? NaN);

  beforeAll(async () => {
    const dir = tempDir('ingest-contract');
    outs = [join(dir, 'a.ndjson'), join(dir, 'b.ndjson')];
    dlq = join(dir, 'dlq.ndjson');
    daemon = await startDaemon([
      '--rules', join(FIXTURES, 'rules'), '--input', 'http', '--api-addr', '127.0.0.1:0',
      '--output', `file://${outs[0]}`, '--output', `file://${outs[1]}`, '--dlq', `file://${dlq}`,
    ]);
  });
  afterAll(async () => {
    daemon.kill();
    await daemon.exited;
  });

  it('dead-letters a line over 1 MiB as its first bytes, with its size in the error', async () => {
    // 17 ASCII bytes, then two-byte characters: 4096 bytes would end inside one.
    const big = `{"CommandLine":"x${'é'.repeat(MAX_LINE_BYTES)}"}`;
    const res = await daemon.json({ method: 'POST', url: '/api/v1/events', body: `{"CommandLine":"whoami"}\n${big}\n` });
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ accepted: 1, parse_errors: 1 });
    const entry = await waitFor(() => readNdjson(dlq).find((e) => String(e['error']).startsWith('line exceeds maximum size')));
    const bytes = Buffer.byteLength(big);
    expect(entry['error']).toBe(`line exceeds maximum size: ${bytes} bytes, limit ${MAX_LINE_BYTES}; original_event holds its first ${OVERSIZED_HEAD_BYTES - 1} bytes`);
    expect(entry['original_event']).toBe(big.slice(0, 17 + (OVERSIZED_HEAD_BYTES - 1 - 17) / 2));
    expect(value(await metrics(), 'svc_events_parse_errors_total')).toBe(1);
  });

  it('dead-letters a line that is not UTF-8, its invalid bytes shown as U+FFFD', async () => {
    const body = Buffer.concat([Buffer.from('{"CommandLine":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}\n')]);
    const res = await daemon.json({ method: 'POST', url: '/api/v1/events', body });
    expect(res).toMatchObject({ status: 200, body: { accepted: 0, parse_errors: 1 } });
    const entry = await waitFor(() => readNdjson(dlq).find((e) => String(e['error']).startsWith('line is not valid UTF-8')));
    expect(entry).toMatchObject({ original_event: '{"CommandLine":"\ufffd\ufffd"}', error: 'line is not valid UTF-8 (20 bytes; invalid sequences shown as U+FFFD)' });
    expect(value(await metrics(), 'svc_events_parse_errors_total')).toBe(2);
  });

  it('delivers to both file sinks and renders one sink depth series for them, zero once drained', async () => {
    await daemon.request({ method: 'POST', url: '/api/v1/events', body: ndjson([{ CommandLine: 'whoami' }, { CommandLine: 'whoami /all' }]) });
    await waitFor(() => (outs.every((o) => readNdjson(o).length === 3) ? true : undefined), 10_000, 'both sinks');
    const text = await waitFor(async () => {
      const t = await metrics();
      return value(t, 'svc_sink_queue_depth{sink="file"}') === 0 ? t : undefined;
    }, 10_000, 'the sinks to drain');
    expect(text.match(/^svc_sink_queue_depth\{/gm)).toHaveLength(1);
    expect(value(text, 'svc_output_queue_depth')).toBe(0);
  });

  it('keeps the logsource routing counters at zero without --logsource-routing', async () => {
    const text = await metrics();
    expect(value(text, 'svc_events_processed_total')).toBeGreaterThan(0);
    expect(value(text, 'svc_events_without_logsource_total')).toBe(0);
    expect(value(text, 'svc_rules_pruned_by_logsource_total')).toBe(0);
  });
});
