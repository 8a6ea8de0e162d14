import { describe, expect, it } from 'vitest';
import { MemoryBackend } from '../../state/index.js';
import type { KvWriter } from '../../state/kv-backend.js';
import { EventPipeline, InputQueue } from '../../streams/index.js';
import type { UnitOutcome } from '../../streams/index.js';
import { CRASH_RULES, failedLogon, openHarness, ruleSetFrom } from './pipeline-harness.js';
import { flush } from './support.js';
import type { SimulatedClock } from './support.js';

/** A backend whose writes apply at once but report completion only when the test releases them (a slow disk). */
class GatedBackend extends MemoryBackend {
  private gate: Promise<void> = Promise.resolve();
  private open: () => void = () => undefined;
  hold(): void {
    this.gate = new Promise((resolve) => (this.open = resolve));
  }
  release(): void {
    this.open();
  }
  override write(fn: (w: KvWriter) => void): Promise<void> {
    const done = super.write(fn);
    return this.gate.then(() => done);
  }
}

const whoami = (host: string) => JSON.stringify({ EventID: 1, CommandLine: 'powershell whoami', Computer: host });

describe('event pipeline', () => {
  it('evaluates the next batches while earlier commits are written, at most 2 × parallelism + 1 taken, and settles in input order', async () => {
    const backend = new GatedBackend();
    const h = await openHarness(ruleSetFrom(CRASH_RULES), backend);
    const m = h.ctx.metrics;
    const queue = new InputQueue(100, { depth: m.svc_input_queue_depth, backPressure: m.svc_back_pressure_events_total });
    const pipeline = new EventPipeline(h.ctx, {
      queue,
      processor: h.processor,
      sinks: [],
      store: h.store,
      batchSize: 1,
      snapshotPolicy: { every: 1_000_000, intervalMs: 1_000_000_000 },
      snapshot: () => Promise.resolve(),
    });
    backend.hold();
    pipeline.start();
    const settled: string[] = [];
    for (const host of ['a', 'b', 'c', 'd']) {
      await queue.offer({ lines: [whoami(host)], rejected: [], settle: (o: UnitOutcome) => settled.push(`${host}:${String(o.ok)}`) });
    }
    await flush();
    expect(settled).toEqual([]);
    // Inline detection (parallelism 1): a and b committing do not hold c's detection; d waits for a.
    expect(h.store.nextInputOrdinal).toBe(3);
    backend.release();
    await flush();
    expect(settled).toEqual(['a:true', 'b:true', 'c:true', 'd:true']);
    expect(h.store.readOutbox('s', 10).map((e) => (JSON.parse(String(e.payload)) as { result_id: string }).result_id)).toEqual([
      'e000000000000-0',
      'e000000000001-0',
      'e000000000002-0',
      'e000000000003-0',
    ]);
    queue.close();
    await pipeline.done();
  });

  it('takes the interval snapshot while idle, only when something was journaled since the last one', async () => {
    const h = await openHarness(ruleSetFrom(CRASH_RULES));
    const clock = h.ctx.clock as SimulatedClock;
    const m = h.ctx.metrics;
    const queue = new InputQueue(100, { depth: m.svc_input_queue_depth, backPressure: m.svc_back_pressure_events_total });
    const taken: number[] = [];
    const pipeline = new EventPipeline(h.ctx, {
      queue,
      processor: h.processor,
      sinks: [],
      store: h.store,
      batchSize: 10,
      snapshotPolicy: { every: 1_000_000, intervalMs: 1_000 },
      snapshot: (at) => Promise.resolve(taken.push(at)),
    });
    const start = clock.now();
    pipeline.start();
    const seq = h.store.lastSeq;
    await queue.offer({ lines: [failedLogon('h1', 1)], rejected: [], settle: () => undefined });
    await flush();
    expect(h.store.lastSeq).toBeGreaterThan(seq);
    expect(taken).toEqual([]);
    // No batch follows: only the timer can take it.
    await clock.advance(1_000);
    expect(taken).toEqual([start + 1_000]);
    await clock.advance(5_000);
    expect(taken).toHaveLength(1);
    await pipeline.stop(1_000);
    // The final snapshot of a graceful stop, and no timer snapshot after it.
    expect(taken).toHaveLength(2);
    await clock.advance(10_000);
    expect(taken).toHaveLength(2);
  });
});
