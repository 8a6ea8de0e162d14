import { describe, expect, it } from 'vitest';
import { openMemoryStateStore } from '../../src/state/index.js';
import { createDecoder, createDlqWriter, createHttpSource, createStdinSource, InputQueue, QueueClosedError, UnitTooLargeError } from '../../src/streams/index.js';
import { flush, metricValue, testContext } from './support.js';

function queueFor(ctx: ReturnType<typeof testContext>, capacity = 100): InputQueue {
  return new InputQueue(capacity, { depth: ctx.metrics.svc_input_queue_depth, backPressure: ctx.metrics.svc_back_pressure_events_total });
}

describe('stdin source', () => {
  it('frames lines across chunks, counts oversized lines and resolves at EOF', async () => {
    const ctx = testContext();
    const queue = queueFor(ctx);
    async function* input() {
      yield '{"a":1}\n{"b"';
      yield ':2}\n\n' + 'x'.repeat(1_048_577) + '\n{"c":3}';
    }
    await createStdinSource({ chunk_lines: 2 }, ctx, { input: input(), queue });
    queue.close();
    const units = await queue.take(100);
    expect(units.flatMap((u) => u.lines)).toEqual(['{"a":1}', '{"b":2}', '{"c":3}']);
    expect(units.reduce((s, u) => s + u.oversized, 0)).toBe(1);
  });
});

describe('http source', () => {
  it('answers only after the unit is settled, and a repeated key gets the first answer', async () => {
    const ctx = testContext();
    const queue = queueFor(ctx);
    const store = await openMemoryStateStore();
    const ingest = createHttpSource({}, ctx, { queue, store });
    const first = ingest.ingest({ lines: ['a', 'b'], oversized: 0 }, 'k');
    const second = ingest.ingest({ lines: ['a', 'b'], oversized: 0 }, 'k');
    let answered = false;
    void first.then(() => (answered = true));
    await flush();
    expect(answered).toBe(false);
    const [unit] = await queue.take(10);
    expect(queue.depth).toBe(0);
    unit?.settle?.({ ok: true, accepted: 2, parseErrors: 0 });
    expect(await first).toEqual({ accepted: 2, parse_errors: 0 });
    expect(await second).toEqual({ accepted: 2, parse_errors: 0 });
  });

  it('rejects with QueueClosedError once the queue is closed', async () => {
    const ctx = testContext();
    const queue = queueFor(ctx);
    const ingest = createHttpSource({}, ctx, { queue, store: await openMemoryStateStore() });
    queue.close();
    await expect(ingest.ingest({ lines: ['a'], oversized: 0 })).rejects.toBeInstanceOf(QueueClosedError);
  });

  it('answers a request cut short by a close once what was admitted of it committed, with that count', async () => {
    const ctx = testContext();
    const queue = queueFor(ctx, 2);
    const ingest = createHttpSource({}, ctx, { queue, store: await openMemoryStateStore() });
    let failure: unknown;
    const answer = ingest.ingest({ lines: ['a', 'b', 'c', 'd', 'e'], oversized: 0 }).catch((e: unknown) => (failure = e));
    await flush();
    const [first] = await queue.take(2);
    first?.settle?.({ ok: true, accepted: 2, parseErrors: 0 });
    queue.close();
    await flush();
    expect(failure).toBeUndefined();
    const [second] = await queue.take(2);
    expect(second?.lines).toEqual(['c', 'd']);
    second?.settle?.({ ok: true, accepted: 2, parseErrors: 0 });
    await answer;
    expect(failure).toBeInstanceOf(QueueClosedError);
    expect((failure as QueueClosedError).accepted).toBe(4);
  });

  it('refuses a keyed request with more lines than the queue holds, without committing its key', async () => {
    const ctx = testContext();
    const store = await openMemoryStateStore();
    const ingest = createHttpSource({}, ctx, { queue: queueFor(ctx, 2), store });
    await expect(ingest.ingest({ lines: ['a', 'b', 'c'], oversized: 0 }, 'k')).rejects.toBeInstanceOf(UnitTooLargeError);
    expect(store.lookupIdempotency('k', ctx.clock.now())).toBeUndefined();
  });
});

describe('decode stage', () => {
  it('counts parse errors and dead-letters the raw line with an RFC 3339 +00:00 timestamp', async () => {
    const ctx = testContext();
    const written: string[] = [];
    const dlq = createDlqWriter(ctx, (t) => {
      written.push(t);
      return Promise.resolve();
    }, 16);
    const decoder = createDecoder({ format: 'json', syslog_tz_minutes: 0 }, ctx, dlq);
    decoder.failed('{nope');
    decoder.rejected(2);
    await dlq.flush();
    expect(await metricValue(ctx.registry, 'svc_events_parse_errors_total')).toBe(3);
    const entry = JSON.parse(written.join('').trim()) as Record<string, string>;
    expect(entry).toMatchObject({ original_event: '{nope', error: 'parse error' });
    expect(entry['timestamp']).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/);
  });
});
