// The pipeline's dispatch and commit flow (issue 19 §4), model-based: units offered, detections that
// finish in any order (workers), commits that land one at a time (a slow disk). Against a model: units
// settle in input order, each once, only after their commit; batches being detected stay within the
// detector's parallelism (+1 taken while waiting) and batches taken but not committed within twice it
// (+1), and a commit being written never holds a detection back.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryBackend } from '../../state/index.js';
import type { KvWriter } from '../../state/kv-backend.js';
import { EventPipeline, InputQueue } from '../../streams/index.js';
import type { DetectedBatch, Detector } from '../../streams/index.js';
import { CRASH_RULES, inline, openHarness, ruleSetFrom } from './pipeline-harness.js';
import type { Harness } from './pipeline-harness.js';
import { flush } from './support.js';

/** Once `slow`, writes apply at once but complete only when released, oldest first. */
class SlowDisk extends MemoryBackend {
  slow = false;
  readonly pending: (() => void)[] = [];
  override write(fn: (w: KvWriter) => void): Promise<void> {
    const done = super.write(fn);
    if (!this.slow) return done;
    return new Promise<void>((release) => this.pending.push(release)).then(() => done);
  }
}

/** A detector of `parallelism` whose answers the test hands out, in any order. */
function gatedDetector(inner: Detector, parallelism: number): Detector & { readonly running: (() => void)[]; readonly started: () => number } {
  const running: (() => void)[] = [];
  let started = 0;
  return {
    ...inner,
    parallelism,
    running,
    started: () => started,
    detect(lines, now) {
      started++;
      return new Promise<DetectedBatch>((resolve, reject) => running.push(() => void inner.detect(lines, now).then(resolve, reject)));
    },
  };
}

interface Real {
  readonly h: Harness;
  readonly disk: SlowDisk;
  readonly detector: ReturnType<typeof gatedDetector>;
  readonly queue: InputQueue;
  readonly settled: number[];
  readonly parallelism: number;
}
interface Model {
  offered: number;
}

const whoami = (n: number) => JSON.stringify({ EventID: 1, CommandLine: 'powershell whoami', Computer: `h${String(n)}` });

async function check(r: Real, m: Model): Promise<void> {
  await flush();
  // Input order, each once, and none before its commit landed.
  expect(r.settled).toEqual(Array.from({ length: r.settled.length }, (_, i) => i));
  expect(r.settled.length).toBeLessThanOrEqual(m.offered);
  const taken = r.detector.started();
  const handedOver = r.h.store.nextInputOrdinal;
  const p = r.parallelism;
  expect(taken - handedOver).toBeLessThanOrEqual(p + 1);
  expect(taken - r.settled.length).toBeLessThanOrEqual(2 * p + 1);
  // Work waiting in the queue is held back only by those bounds: commits being written hold no detection slot.
  if (r.queue.depth > 0) expect(taken - handedOver >= p + 1 || taken - r.settled.length >= 2 * p + 1).toBe(true);
}

class Offer implements fc.AsyncCommand<Model, Real> {
  check = () => true;
  async run(m: Model, r: Real): Promise<void> {
    const n = m.offered++;
    void r.queue.offer({ lines: [whoami(n)], rejected: [], settle: (o) => o.ok && r.settled.push(n) });
    await check(r, m);
  }
  toString = () => 'offer';
}

class FinishDetection implements fc.AsyncCommand<Model, Real> {
  constructor(readonly pick: number) {}
  check = () => true;
  async run(m: Model, r: Real): Promise<void> {
    const { running } = r.detector;
    if (running.length > 0) running.splice(this.pick % running.length, 1)[0]?.();
    await check(r, m);
  }
  toString = () => `detect#${String(this.pick)}`;
}

class LandCommit implements fc.AsyncCommand<Model, Real> {
  check = () => true;
  async run(m: Model, r: Real): Promise<void> {
    r.disk.pending.shift()?.();
    await check(r, m);
  }
  toString = () => 'land';
}

describe('event pipeline flow (model)', () => {
  it('keeps input order, loses and repeats nothing, and bounds what is detecting and committing', async () => {
    const rules = ruleSetFrom(CRASH_RULES);
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 4 }),
        fc.commands([fc.constant(new Offer()), fc.nat(7).map((k) => new FinishDetection(k)), fc.constant(new LandCommit())], { maxCommands: 60 }),
        async (parallelism, cmds) => {
          const disk = new SlowDisk();
          const detector = gatedDetector(inline(rules), parallelism);
          const h = await openHarness(rules, disk, detector);
          disk.slow = true;
          const m = h.ctx.metrics;
          const queue = new InputQueue(1_000, { depth: m.svc_input_queue_depth, backPressure: m.svc_back_pressure_events_total });
          const pipeline = new EventPipeline(h.ctx, { queue, processor: h.processor, sinks: [], store: h.store, batchSize: 1, snapshotPolicy: { every: 1_000_000, intervalMs: 1_000_000_000 }, snapshot: () => Promise.resolve() });
          pipeline.start();
          const real: Real = { h, disk, detector, queue, settled: [], parallelism };
          const model: Model = { offered: 0 };
          await fc.asyncModelRun(() => ({ model, real }), cmds);
          // Drain: everything offered is detected, committed and settled once, in order.
          queue.close();
          for (let i = 0; i < 10 * model.offered + 10 && real.settled.length < model.offered; i++) {
            detector.running.shift()?.();
            disk.pending.shift()?.();
            await flush();
          }
          await pipeline.done();
          expect(real.settled).toEqual(Array.from({ length: model.offered }, (_, i) => i));
          expect(h.store.readOutbox('s', 1_000).length).toBe(model.offered);
        },
      ),
      { numRuns: 40 },
    );
  }, 60_000);
});
