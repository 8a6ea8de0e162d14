import { describe, expect, it } from 'vitest';
import { lineTexts, OVERSIZED_HEAD_BYTES } from '../../protocol/decode/index.js';
import { openMemoryStateStore } from '../../state/index.js';
import { admitSources, createDecoder, createDlqWriter, createHttpSource, createStdinSource, InputQueue, QueueClosedError, UnitTooLargeError } from '../../streams/index.js';
import type { HttpIngest } from '../../streams/index.js';
import type { StateStore } from '../../state/index.js';
import { flush, metricValue, testContext } from './support.js';

function queueFor(ctx: ReturnType<typeof testContext>, capacity = 100): InputQueue {
  return new InputQueue(capacity, { depth: ctx.metrics.svc_input_queue_depth, backPressure: ctx.metrics.svc_back_pressure_events_total });
}

/** An HTTP source admitted into `queue`, as the daemon wires it. */
function httpInto(ctx: ReturnType<typeof testContext>, queue: InputQueue, store: StateStore): HttpIngest {
  const ingest = createHttpSource({}, ctx, { store });
  admitSources([ingest.units], queue, ctx);
  return ingest;
}

describe('stdin source', () => {
  it('frames lines across chunks, counts oversized lines and completes at EOF', async () => {
    const ctx = testContext();
    const queue = queueFor(ctx);
    async function* input() {
      yield '{"a":1}\n{"b"';
      yield ':2}\n\n' + 'x'.repeat(1_048_577) + '\n{"c":3}';
    }
    await admitSources([createStdinSource({ chunk_lines: 2 }, ctx, { input: input() })], queue, ctx).done;
    queue.close();
    const units = await queue.take(100);
    expect(units.flatMap((u) => lineTexts(u.lines))).toEqual(['{"a":1}', '{"b":2}', '{"c":3}']);
    const rejected = units.flatMap((u) => u.rejected);
    expect(rejected).toHaveLength(1);
    expect(rejected[0]).toMatchObject({ reason: 'too_long', bytes: 1_048_577, head: 'x'.repeat(OVERSIZED_HEAD_BYTES) });
  });

  it('reads on only once its last unit was admitted: a full queue holds the reader (counted once per wait)', async () => {
    const ctx = testContext();
    const queue = queueFor(ctx, 2);
    let reads = 0;
    async function* input() {
      for (let i = 0; i < 4; i++) {
        reads++;
        yield `{"n":${String(2 * i)}}\n{"n":${String(2 * i + 1)}}\n`;
      }
    }
    const admission = admitSources([createStdinSource({ chunk_lines: 2 }, ctx, { input: input() })], queue, ctx);
    await flush();
    // The first unit filled the queue; the second was read and waits; the third is not read yet.
    expect(reads).toBe(2);
    expect(queue.depth).toBe(2);
    expect(await metricValue(ctx.registry, 'svc_back_pressure_events_total')).toBe(1);
    const taken: string[] = [];
    for (let i = 0; i < 4; i++) taken.push(...(await queue.take(2)).flatMap((u) => lineTexts(u.lines)));
    await admission.done;
    expect(reads).toBe(4);
    expect(taken).toHaveLength(8);
    expect(await metricValue(ctx.registry, 'svc_input_queue_depth')).toBe(0);
  });
});

describe('admission point', () => {
  it('merges several sources into one queue, each unit whole and in its source order', async () => {
    const ctx = testContext();
    const queue = queueFor(ctx);
    const store = await openMemoryStateStore();
    const http = createHttpSource({}, ctx, { store });
    async function* input() {
      yield '{"s":1}\n{"s":2}\n';
    }
    const admission = admitSources([http.units, createStdinSource({ chunk_lines: 2 }, ctx, { input: input() })], queue, ctx);
    const answer = http.ingest({ lines: ['{"h":1}'], rejected: [] });
    await flush();
    const units = await queue.take(10);
    expect(units.map((u) => u.lines).sort()).toEqual([['{"h":1}'], ['{"s":1}', '{"s":2}']]);
    for (const u of units) u.settle?.({ ok: true, accepted: u.lines.length, parseErrors: 0 });
    expect(await answer).toEqual({ accepted: 1, parse_errors: 0 });
    admission.stop();
    // Torn down: the HTTP source refuses what it can no longer hand over.
    await expect(http.ingest({ lines: ['x'], rejected: [] })).rejects.toBeInstanceOf(QueueClosedError);
  });
});

describe('http source', () => {
  it('answers only after the unit is settled, and a repeated key gets the first answer', async () => {
    const ctx = testContext();
    const queue = queueFor(ctx);
    const store = await openMemoryStateStore();
    const ingest = httpInto(ctx, queue, store);
    const first = ingest.ingest({ lines: ['a', 'b'], rejected: [] }, 'k');
    const second = ingest.ingest({ lines: ['a', 'b'], rejected: [] }, 'k');
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
    const ingest = httpInto(ctx, queue, await openMemoryStateStore());
    queue.close();
    await expect(ingest.ingest({ lines: ['a'], rejected: [] })).rejects.toBeInstanceOf(QueueClosedError);
  });

  it('answers a request cut short by a close once what was admitted of it committed, with that count', async () => {
    const ctx = testContext();
    const queue = queueFor(ctx, 2);
    const ingest = httpInto(ctx, queue, await openMemoryStateStore());
    let failure: unknown;
    const answer = ingest.ingest({ lines: ['a', 'b', 'c', 'd', 'e'], rejected: [] }).catch((e: unknown) => (failure = e));
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
    const ingest = httpInto(ctx, queueFor(ctx, 2), store);
    await expect(ingest.ingest({ lines: ['a', 'b', 'c'], rejected: [] }, 'k')).rejects.toBeInstanceOf(UnitTooLargeError);
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
    decoder.rejected([{ ok: false, reason: 'invalid_utf8', bytes: 4, lineNo: 2, head: '{\ufffd}\n' }]);
    await dlq.flush();
    expect(await metricValue(ctx.registry, 'svc_events_parse_errors_total')).toBe(2);
    const [entry, notUtf8] = written.join('').trim().split('\n').map((l) => JSON.parse(l) as Record<string, string>);
    expect(entry).toMatchObject({ original_event: '{nope', error: 'parse error' });
    expect(entry?.['timestamp']).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/);
    // A line that is not UTF-8 is dead-lettered too, its invalid bytes shown as U+FFFD.
    expect(notUtf8).toMatchObject({ original_event: '{\ufffd}\n', error: 'line is not valid UTF-8 (4 bytes; invalid sequences shown as U+FFFD)' });
  });

  it('dead-letters an oversized line as its head, with its size in the error', async () => {
    const ctx = testContext();
    const written: string[] = [];
    const dlq = createDlqWriter(ctx, (t) => {
      written.push(t);
      return Promise.resolve();
    }, 8);
    createDecoder({ format: 'json', syslog_tz_minutes: 0 }, ctx, dlq).rejected([{ ok: false, reason: 'too_long', bytes: 2_000_000, lineNo: 1, head: '{"a":"é' }]);
    await dlq.flush();
    expect(await metricValue(ctx.registry, 'svc_events_parse_errors_total')).toBe(1);
    expect(JSON.parse(written.join('').trim())).toMatchObject({
      original_event: '{"a":"é',
      error: 'line exceeds maximum size: 2000000 bytes, limit 1048576; original_event holds its first 8 bytes',
    });
  });
});
