// STYLE rule 7: every stream component module has `kind`, a typebox `configSchema` whose defaults make a
// valid config, and `create`; and driven with a known workload, each reports what it received, sent,
// failed and dropped, through the metrics it owns (or, where it owns none, what it handed on).
import Compile from 'typebox/compile';
import type { TSchema } from 'typebox';
import { describe, expect, it } from 'vitest';
import { openMemoryStateStore } from '../../state/index.js';
import { admitSources, InputQueue, SinkQueueDepths, SinkWorker } from '../../streams/index.js';
import type { CommittedResult } from '../../streams/index.js';
import { liveSink } from './live-sink.js';
import { flush, metricValue, testContext } from './support.js';
import * as decodeStage from '../../streams/decode-stage.js';
import * as dlqWriter from '../../streams/dlq-writer.js';
import * as fileSink from '../../streams/sinks/file-sink.js';
import * as natsSink from '../../streams/sinks/nats-sink.js';
import * as stdoutSink from '../../streams/sinks/stdout-sink.js';
import * as natsSource from '../../streams/sources/nats-source.js';
import * as httpSource from '../../streams/sources/http-source.js';
import * as stdinSource from '../../streams/sources/stdin-source.js';
import * as tailFanout from '../../streams/tail-fanout.js';
import * as webhookSink from '../../streams/webhook/webhook-sink.js';

const COMPONENTS: readonly [string, { kind: string; configSchema: TSchema; create: unknown }, Record<string, unknown>][] = [
  ['stdin source', stdinSource, {}],
  ['http source', httpSource, {}],
  ['nats source', natsSource, { url: 'nats://127.0.0.1:4222/events.>' }],
  ['decode stage', decodeStage, { format: 'json' }],
  ['dead-letter writer', dlqWriter, { path: '/tmp/dlq' }],
  ['stdout sink', stdoutSink, {}],
  ['file sink', fileSink, { path: '/tmp/out' }],
  ['nats sink', natsSink, { url: 'nats://127.0.0.1:4222/alerts' }],
  ['detection tail', tailFanout, {}],
  ['webhook sink', webhookSink, { id: 'hook', kind: 'detection', url: 'http://127.0.0.1/hook' }],
];

describe('stream components', () => {
  it.each(COMPONENTS)('%s exports kind, configSchema and create', (_name, mod, minimal) => {
    expect(typeof mod.kind).toBe('string');
    expect(typeof mod.create).toBe('function');
    const check = Compile(mod.configSchema);
    expect(check.Check(check.Default(structuredClone(minimal)))).toBe(true);
  });

  it('gives every component its own kind', () => {
    const kinds = COMPONENTS.map(([, m]) => m.kind);
    expect(new Set(kinds).size).toBe(kinds.length);
  });
});

interface Counts {
  readonly received: number;
  readonly sent: number;
  readonly errors: number;
  readonly dropped: number;
}

type Ctx = ReturnType<typeof testContext>;

function queueFor(ctx: Ctx, capacity: number): InputQueue {
  return new InputQueue(capacity, { depth: ctx.metrics.svc_input_queue_depth, backPressure: ctx.metrics.svc_back_pressure_events_total });
}

/** A sink of `kind` behind its delivery worker, after `n` committed results were delivered. */
async function deliver(ctx: Ctx, make: (store: Awaited<ReturnType<typeof openMemoryStateStore>>) => ReturnType<typeof stdoutSink.create>, n: number): Promise<Counts> {
  const store = await openMemoryStateStore({ sinks: ['stdout'] });
  const target = make(store);
  const dlq = dlqWriter.create(ctx, undefined, 8);
  const worker = new SinkWorker(target, store, ctx, { capacity: 8, retryMax: 0, backoffBaseMs: 1, backoffMaxMs: 1, batchMax: 4 }, dlq, () => undefined, new SinkQueueDepths(ctx.metrics.svc_output_queue_depth, ctx.metrics.svc_sink_queue_depth));
  await store.commitBatch({ records: [], outbox: Array.from({ length: n }, (_, i) => ({ result_id: `r${String(i)}`, payload: `{"result_id":"r${String(i)}"}\n` })) });
  worker.start();
  worker.wake();
  await worker.stop(ctx.clock.now() + 1_000);
  const sink = { sink: target.label };
  return {
    received: store.lastOseq,
    sent: store.watermark(target.name),
    errors: await metricValue(ctx.registry, 'svc_sink_delivery_failures_total', sink),
    dropped: await metricValue(ctx.registry, 'svc_sink_dropped_total', sink),
  };
}

const DRIVEN: readonly [string, (ctx: Ctx) => Promise<Counts>, Counts][] = [
  [
    'stdin source: lines read; lines admitted to the queue; oversized lines dropped (dead-lettered later)',
    async (ctx) => {
      async function* input() {
        yield `{"a":1}\n${'x'.repeat(1_048_577)}\n{"b":2}\n{"c":3}\n`;
      }
      const queue = queueFor(ctx, 10);
      await admitSources([stdinSource.create({ chunk_lines: 2 }, ctx, { input: input() })], queue, ctx).done;
      const sent = await metricValue(ctx.registry, 'svc_input_queue_depth');
      const units = await queue.take(10);
      const dropped = units.reduce((n, u) => n + u.rejected.length, 0);
      return { received: units.reduce((n, u) => n + u.lines.length, 0) + dropped, sent, errors: 0, dropped };
    },
    { received: 4, sent: 3, errors: 0, dropped: 1 },
  ],
  [
    'http source: requests; requests committed; requests refused once admission stopped',
    async (ctx) => {
      const http = httpSource.create({}, ctx, { store: await openMemoryStateStore() });
      const queue = queueFor(ctx, 10);
      const admission = admitSources([http.units], queue, ctx);
      const answers = [http.ingest({ lines: ['{}', '{}'], rejected: [] }), http.ingest({ lines: ['{}'], rejected: [] })];
      await flush();
      for (const u of await queue.take(10)) u.settle?.({ ok: true, accepted: u.lines.length, parseErrors: 0 });
      const sent = (await Promise.all(answers)).length;
      admission.stop();
      const refused = await http.ingest({ lines: ['{}'], rejected: [] }).then(() => 0, () => 1);
      return { received: 3, sent, errors: refused, dropped: 0 };
    },
    { received: 3, sent: 2, errors: 1, dropped: 0 },
  ],
  [
    'decode stage: failures reported; dead-lettered; counted as parse errors',
    async (ctx) => {
      const dlq = dlqWriter.create(ctx, () => Promise.resolve(), 8);
      const decoder = decodeStage.create({ format: 'json', syslog_tz_minutes: 0 }, ctx, dlq);
      decoder.failed('{nope');
      decoder.failed('[1]');
      decoder.rejected([{ ok: false, reason: 'invalid_utf8', bytes: 3, lineNo: 3, head: '\ufffd' }]);
      await dlq.flush();
      return { received: 3, sent: await metricValue(ctx.registry, 'svc_dlq_events_total'), errors: await metricValue(ctx.registry, 'svc_events_parse_errors_total'), dropped: dlq.dropped };
    },
    { received: 3, sent: 3, errors: 3, dropped: 0 },
  ],
  [
    'dead-letter writer: entries; written; lost to a full queue',
    async (ctx) => {
      const written: string[] = [];
      const dlq = dlqWriter.create(ctx, (text) => (written.push(...text.trimEnd().split('\n')), Promise.resolve()), 2);
      for (let i = 0; i < 5; i++) dlq.write(`e${String(i)}`, 'parse error');
      await dlq.flush();
      return { received: await metricValue(ctx.registry, 'svc_dlq_events_total'), sent: written.length, errors: 0, dropped: dlq.dropped };
    },
    { received: 5, sent: 2, errors: 0, dropped: 3 },
  ],
  [
    'stdout sink: committed results; delivered; delivery failures; drops',
    async (ctx) => {
      const out: (string | Uint8Array)[] = [];
      return deliver(ctx, () => stdoutSink.create({ on_full: 'block' }, ctx, { write: (t) => (out.push(t), true), once: () => undefined }), 5);
    },
    { received: 5, sent: 5, errors: 0, dropped: 0 },
  ],
  [
    'detection tail: results published; streamed to the session; dropped by its full buffer',
    async (ctx) => {
      const tail = tailFanout.create({ max_sessions: 1, buffer_events: 64 }, ctx);
      const sink = liveSink(2);
      tail.open({}, sink);
      const result = (i: number): CommittedResult => ({ result_id: `r${String(i)}`, head: { rule_title: 'T', rule_id: null, level: 'high' }, text: `{"i":${String(i)}}` });
      tail.publish([0, 1, 2, 3].map(result));
      tail.closeAll();
      return { received: 4, sent: sink.lines.length, errors: 0, dropped: await metricValue(ctx.registry, 'svc_tail_detections_dropped_total') };
    },
    { received: 4, sent: 2, errors: 0, dropped: 2 },
  ],
];

describe('stream component counters', () => {
  it.each(DRIVEN)('%s', async (_name, drive, expected) => {
    const counts = await drive(testContext());
    expect(counts).toEqual(expected);
    // Nothing is counted twice: what went on and what was dropped never exceed what came in.
    expect(counts.sent + counts.dropped).toBeLessThanOrEqual(counts.received);
  });
});

