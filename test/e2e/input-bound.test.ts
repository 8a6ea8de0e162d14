// The input queue's bound holds for requests larger than it: `--buffer-size 2` and a 300-line POST.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, FIXTURES, ndjson, readNdjson, startDaemon, tempDir, waitFor } from './harness.js';
import type { RunningDaemon } from './harness.js';

beforeAll(ensureBuilt, 180_000);

/** The value of an unlabelled series (or of the labelled one named in full) in a scrape. */
function series(text: string, name: string): number {
  const escaped = name.replace(/[{}"+.]/g, (c) => `\\${c}`);
  const m = new RegExp(`^${escaped} (\\S+)$`, 'm').exec(text);
  return m === null ? Number.NaN : Number(m[1]);
}

describe('input queue bound over HTTP (--buffer-size 2)', () => {
  let daemon: RunningDaemon;
  let out: string;
  let dlq: string;
  beforeAll(async () => {
    const dir = tempDir('bound');
    out = join(dir, 'out.ndjson');
    dlq = join(dir, 'dlq.ndjson');
    daemon = await startDaemon([
      '--rules', join(FIXTURES, 'rules'), '--input', 'http', '--input-format', 'json', '--api-addr', '127.0.0.1:0',
      '--output', `file://${out}`, '--dlq', `file://${dlq}`, '--buffer-size', '2',
    ]);
  });
  afterAll(async () => {
    daemon.kill();
    await daemon.exited;
  });

  it('admits a 300-line request in chunks (batches of at most 2), answering once all of it committed', async () => {
    const lines = Array.from({ length: 300 }, (_, i) => (i % 10 === 9 ? `{broken ${i}` : JSON.stringify(i % 3 === 0 ? { CommandLine: `whoami ${i}` } : { n: i })));
    const res = await daemon.json({ method: 'POST', url: '/api/v1/events', body: `${lines.join('\n')}\n` });
    expect(res).toEqual({ status: 200, body: { accepted: 300, parse_errors: 30 } });
    const metrics = (await daemon.request({ method: 'GET', url: '/metrics' })).text;
    // Answered only once committed: every event is already counted.
    expect(series(metrics, 'svc_events_processed_total')).toBe(270);
    expect(series(metrics, 'svc_batch_size_bucket{le="2.5"}')).toBe(series(metrics, 'svc_batch_size_count'));
    expect(series(metrics, 'svc_batch_size_sum')).toBe(300);
    expect(series(metrics, 'svc_back_pressure_events_total')).toBeGreaterThanOrEqual(1);
    expect(series(metrics, 'svc_input_queue_depth')).toBe(0);
    const whoami = lines.filter((l) => l.includes('whoami')).length;
    expect(await waitFor(() => (readNdjson(out).length === whoami ? true : undefined), 10_000, 'the detections')).toBe(true);
    // The DLQ holds 2 entries at a time too; the batches waited for its room rather than drop any.
    const dead = await waitFor(() => {
      const e = readNdjson(dlq);
      return e.length >= 30 ? e : undefined;
    });
    expect(dead.map((e) => e['original_event'])).toEqual(lines.filter((l) => l.startsWith('{broken')));
  });

  it('serves concurrent requests larger than the queue, each answered with its own count', async () => {
    const body = (tag: string) => ndjson(Array.from({ length: 40 }, (_, i) => ({ tag, i })));
    const before = series((await daemon.request({ method: 'GET', url: '/metrics' })).text, 'svc_events_processed_total');
    const answers = await Promise.all(['a', 'b', 'c'].map((t) => daemon.json({ method: 'POST', url: '/api/v1/events', body: body(t) })));
    expect(answers.map((a) => a.body)).toEqual(Array.from({ length: 3 }, () => ({ accepted: 40, parse_errors: 0 })));
    expect(series((await daemon.request({ method: 'GET', url: '/metrics' })).text, 'svc_events_processed_total')).toBe(before + 120);
  });

  it('keeps a keyed request whole: one larger than the queue answers 413, one that fits commits', async () => {
    const key = { 'idempotency-key': 'big-1' };
    const big = await daemon.json({ method: 'POST', url: '/api/v1/events', headers: key, body: ndjson([{ a: 1 }, { a: 2 }, { a: 3 }]) });
    expect(big.status).toBe(413);
    expect(big.body).toMatchObject({ error: 'request with Idempotency-Key has more lines than the input buffer holds', max_lines: 2 });
    const small = await daemon.json({ method: 'POST', url: '/api/v1/events', headers: { 'idempotency-key': 'small-1' }, body: ndjson([{ a: 1 }, { a: 2 }]) });
    expect(small).toEqual({ status: 200, body: { accepted: 2, parse_errors: 0 } });
    // The refused key was never committed: the same key with a body that fits is applied.
    const retry = await daemon.json({ method: 'POST', url: '/api/v1/events', headers: key, body: ndjson([{ a: 1 }]) });
    expect(retry).toEqual({ status: 200, body: { accepted: 1, parse_errors: 0 } });
  });
});
