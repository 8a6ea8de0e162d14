import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { openMemoryStateStore, Utf8Lines } from '../../state/index.js';
import { backoffMs, createDlqWriter, SinkQueueDepths, SinkWorker } from '../../streams/index.js';
import type { DeliveryOptions, SinkTarget } from '../../streams/index.js';
import { flush, metricValue, SimulatedClock, testContext } from './support.js';

const linesOf = (texts: readonly string[]): Utf8Lines => Utf8Lines.ofResults(texts.map((text) => ({ result_id: '', text })));

const OPTIONS: DeliveryOptions = { capacity: 4, retryMax: 3, backoffBaseMs: 100, backoffMaxMs: 250, batchMax: 2 };

function target(onFull: 'block' | 'drop', failures = 0): SinkTarget & { lines: string[]; attempts: number } {
  const t = {
    name: 'mem',
    label: 'file',
    onFull,
    lines: [] as string[],
    attempts: 0,
    start: () => Promise.resolve(),
    close: () => Promise.resolve(),
    write(text: string) {
      t.attempts++;
      if (t.attempts <= failures) return Promise.reject(new Error('disk full'));
      t.lines.push(...text.trimEnd().split('\n'));
      return Promise.resolve();
    },
  };
  return t;
}

async function setup(onFull: 'block' | 'drop', failures = 0, options = OPTIONS) {
  const clock = new SimulatedClock();
  const ctx = testContext(clock);
  const store = await openMemoryStateStore({ sinks: ['mem'] });
  const dlqLines: string[] = [];
  const dlq = createDlqWriter(ctx, (text) => {
    dlqLines.push(...text.trimEnd().split('\n'));
    return Promise.resolve();
  }, 16);
  const t = target(onFull, failures);
  const worker = new SinkWorker(t, store, ctx, options, dlq, () => undefined, new SinkQueueDepths(ctx.metrics.svc_output_queue_depth, ctx.metrics.svc_sink_queue_depth));
  const commit = async (n: number) => {
    const base = store.lastOseq;
    await store.commitBatch({ records: [], outbox: Array.from({ length: n }, (_, i) => ({ result_id: `r${base + i + 1}`, payload: { result_id: `r${base + i + 1}` } })) });
    worker.wake();
  };
  return { clock, ctx, store, worker, t, dlqLines, dlq, commit };
}

describe('sink worker', () => {
  it('delivers committed entries in order and advances the watermark', async () => {
    const s = await setup('block');
    s.worker.start();
    await s.commit(5);
    await flush();
    expect(s.t.lines.map((l) => (JSON.parse(l) as { result_id: string }).result_id)).toEqual(['r1', 'r2', 'r3', 'r4', 'r5']);
    expect(s.store.watermark('mem')).toBe(5);
  });

  it('retries with exponential backoff, then succeeds without a DLQ entry', async () => {
    const s = await setup('block', 2);
    s.worker.start();
    await s.commit(1);
    await flush();
    expect(s.t.attempts).toBe(1);
    await s.clock.advance(99);
    expect(s.t.attempts).toBe(1);
    await s.clock.advance(1);
    expect(s.t.attempts).toBe(2);
    await s.clock.advance(200);
    expect(s.t.attempts).toBe(3);
    expect(s.t.lines).toHaveLength(1);
    expect(await metricValue(s.ctx.registry, 'svc_sink_retries_total', { sink: 'file' })).toBe(2);
    expect(s.dlqLines).toHaveLength(0);
  });

  it('sends the entries to the DLQ when retries run out and moves on', async () => {
    const s = await setup('block', 100);
    s.worker.start();
    await s.commit(1);
    await s.clock.advance(10_000);
    await s.dlq.flush();
    expect(s.t.attempts).toBe(4);
    expect(s.dlqLines).toHaveLength(1);
    const entry = JSON.parse(s.dlqLines[0] ?? '{}') as { original_event: string; error: string };
    expect(JSON.parse(entry.original_event)).toEqual([{ result_id: 'r1' }]);
    expect(entry.error).toBe('sink delivery failure: disk full');
    expect(s.store.watermark('mem')).toBe(1);
    expect(await metricValue(s.ctx.registry, 'svc_sink_delivery_failures_total', { sink: 'file' })).toBe(1);
    expect(await metricValue(s.ctx.registry, 'svc_dlq_events_total')).toBe(1);
  });

  it('holds its watermark while the DLQ has no room for a failed batch, then hands it over: nothing lost', async () => {
    const clock = new SimulatedClock();
    const ctx = testContext(clock);
    const store = await openMemoryStateStore({ sinks: ['mem'] });
    const appends: { text: string; done: () => void }[] = [];
    const dlq = createDlqWriter(ctx, (text) => new Promise<void>((done) => appends.push({ text, done })), 1);
    dlq.write('{earlier', 'parse error');
    const worker = new SinkWorker(target('block', 100), store, ctx, OPTIONS, dlq, () => undefined, new SinkQueueDepths(ctx.metrics.svc_output_queue_depth, ctx.metrics.svc_sink_queue_depth));
    worker.start();
    await store.commitBatch({ records: [], outbox: [{ result_id: 'r1', payload: '{"result_id":"r1"}' }] });
    worker.wake();
    await clock.advance(10_000);
    expect(store.watermark('mem')).toBe(0);
    expect(dlq.depth).toBe(1);
    appends.shift()?.done();
    await flush();
    expect(store.watermark('mem')).toBe(1);
    expect(appends.map((a) => (JSON.parse(a.text) as { original_event: string }).original_event)).toEqual(['[{"result_id":"r1"}]']);
    appends.shift()?.done();
    await dlq.flush();
    expect(dlq.dropped).toBe(0);
  });

  it('writes text payloads verbatim and object payloads of older stores as JSON, in one write per batch, and both reach the DLQ as JSON', async () => {
    const s = await setup('block', 100, { ...OPTIONS, batchMax: 3 });
    const text = '{"result_id":"r1","rule_title":"T"}';
    await s.store.commitBatch({ records: [], outbox: [{ result_id: 'r1', payload: text }, { result_id: 'r2', payload: { result_id: 'r2' } }] });
    s.worker.start();
    s.worker.wake();
    await s.clock.advance(10_000);
    await s.dlq.flush();
    const entry = JSON.parse(s.dlqLines[0] ?? '{}') as { original_event: string };
    expect(JSON.parse(entry.original_event)).toEqual([{ result_id: 'r1', rule_title: 'T' }, { result_id: 'r2' }]);
    const ok = await setup('block', 0, { ...OPTIONS, batchMax: 3 });
    await ok.store.commitBatch({ records: [], outbox: [{ result_id: 'r1', payload: text }, { result_id: 'r2', payload: { result_id: 'r2' } }] });
    ok.worker.start();
    ok.worker.wake();
    await flush();
    expect(ok.t.attempts).toBe(1);
    expect(ok.t.lines).toEqual([text, '{"result_id":"r2"}']);
  });

  it('writes offered texts of just-committed entries without reading the outbox back, and reads it for what was not offered', async () => {
    const s = await setup('block');
    const reads = vi.spyOn(s.store, 'readOutbox');
    const commitOffered = async (ids: readonly string[]) => {
      const texts = ids.map((id) => ({ text: JSON.stringify({ result_id: id }) }));
      const { firstOseq } = await s.store.commitBatch({ records: [], outbox: ids.map((id, i) => ({ result_id: id, payload: texts[i]?.text })) });
      s.worker.offer(firstOseq, texts);
      s.worker.wake();
    };
    s.worker.start();
    await commitOffered(['r1', 'r2', 'r3']);
    await flush();
    expect(reads).not.toHaveBeenCalled();
    await s.commit(1);
    await commitOffered(['r5']);
    await flush();
    expect(reads).toHaveBeenCalled();
    expect(s.t.lines.map((l) => (JSON.parse(l) as { result_id: string }).result_id)).toEqual(['r1', 'r2', 'r3', 'r4', 'r5']);
    expect(s.store.watermark('mem')).toBe(5);
  });

  it('writes the offered UTF-8 bytes to a sink that takes bytes, the same bytes as its text, and text to one that formats lines', async () => {
    const texts = ['{"result_id":"r1","t":"Microsoft®"}', '{"result_id":"r2","t":"𝄞"}', '{"result_id":"r3"}'];
    const run = async (format?: (t: readonly string[]) => readonly string[]) => {
      const s = await setup('block', 0, { ...OPTIONS, batchMax: 3 });
      const written: (string | Uint8Array)[] = [];
      const collect = (chunk: string | Uint8Array) => (written.push(chunk), Promise.resolve());
      const t: SinkTarget = { ...s.t, write: collect, writeBytes: collect, ...(format !== undefined ? { formatLines: format } : {}) };
      const worker = new SinkWorker(t, s.store, s.ctx, { ...OPTIONS, batchMax: 3 }, s.dlq, () => undefined, new SinkQueueDepths(s.ctx.metrics.svc_output_queue_depth, s.ctx.metrics.svc_sink_queue_depth));
      const { firstOseq } = await s.store.commitBatch({ records: [], outbox: texts.map((payload, i) => ({ result_id: `r${i + 1}`, payload })), outboxLines: linesOf(texts) });
      worker.offer(firstOseq, texts.map((text) => ({ text })), linesOf(texts));
      worker.start();
      worker.wake();
      await flush();
      return written;
    };
    const bytes = await run();
    expect(bytes).toHaveLength(1);
    expect(bytes[0]).toBeInstanceOf(Uint8Array);
    expect(Buffer.from(bytes[0] as Uint8Array).equals(Buffer.from(texts.map((t) => `${t}\n`).join(''), 'utf8'))).toBe(true);
    expect(await run((t) => t.map((x) => x.toUpperCase()))).toEqual([texts.map((t) => `${t.toUpperCase()}\n`).join('')]);
  });

  it('holds the engine back while a blocking sink is full, and a dropping sink skips the oldest instead', async () => {
    const blocking = await setup('block');
    await blocking.commit(4);
    let roomy = false;
    void blocking.worker.room().then(() => (roomy = true));
    await flush();
    expect(roomy).toBe(false);
    blocking.worker.start();
    await flush();
    expect(roomy).toBe(true);

    const dropping = await setup('drop');
    await dropping.commit(7);
    await expect(dropping.worker.room()).resolves.toBeUndefined();
    dropping.worker.start();
    await flush();
    expect(dropping.t.lines).toHaveLength(4);
    expect(await metricValue(dropping.ctx.registry, 'svc_sink_dropped_total', { sink: 'file' })).toBe(3);
  });

  it('sums the queues of every sink into the output depth, and of the sinks sharing a label into their sink depth', async () => {
    const ctx = testContext();
    const depths = new SinkQueueDepths(ctx.metrics.svc_output_queue_depth, ctx.metrics.svc_sink_queue_depth);
    const [a, b, out] = [target('block'), target('drop'), { ...target('block'), label: 'stdout' }];
    for (const t of [a, b, out]) depths.add(t);
    expect(await metricValue(ctx.registry, 'svc_sink_queue_depth', { sink: 'file' })).toBe(0);
    depths.set(a, 3);
    depths.set(b, 4);
    depths.set(out, 2);
    depths.set(a, 1);
    expect(await metricValue(ctx.registry, 'svc_output_queue_depth')).toBe(7);
    expect(await metricValue(ctx.registry, 'svc_sink_queue_depth', { sink: 'file' })).toBe(5);
    expect(await metricValue(ctx.registry, 'svc_sink_queue_depth', { sink: 'stdout' })).toBe(2);
    depths.set(b, 0);
    expect(await metricValue(ctx.registry, 'svc_sink_queue_depth', { sink: 'file' })).toBe(1);
  });

  it('computes backoff as base·2^(attempt−1) capped at the maximum', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 60 }), fc.integer({ min: 0, max: 1000 }), fc.integer({ min: 0, max: 100_000 }), (attempt, base, max) => {
        const d = backoffMs(attempt, base, max);
        expect(d).toBeLessThanOrEqual(max);
        expect(d).toBe(Math.min(max, base * 2 ** Math.min(20, attempt - 1)));
      }),
    );
  });
});
