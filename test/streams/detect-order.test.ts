// Batches detected in parallel finish in any order; the pipeline still applies them in input order,
// so results, ids, correlations and commits are those of inline detection.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EventPipeline, InputQueue } from '../../streams/index.js';
import type { Detector } from '../../streams/index.js';
import { CRASH_RULES, failedLogon, inline, openHarness, ruleSetFrom } from './pipeline-harness.js';
import type { Harness } from './pipeline-harness.js';

const ruleSet = ruleSetFrom(CRASH_RULES);

/** Inline detection whose answers arrive after `delays[i]` event-loop turns (batch i): out of order. */
function scrambled(delays: readonly number[], parallelism: number): Detector {
  const inner = inline(ruleSet);
  let n = 0;
  return {
    ...inner,
    parallelism,
    async detect(lines, now) {
      const result = await inner.detect(lines, now);
      for (let i = delays[n++ % delays.length] ?? 0; i > 0; i--) await new Promise((r) => setImmediate(r));
      return result;
    },
  };
}

const line = fc.oneof(
  fc.tuple(fc.constantFrom('a', 'b'), fc.integer({ min: 0, max: 300 })).map(([host, s]) => failedLogon(host, s)),
  fc.constantFrom(JSON.stringify({ EventID: 1, CommandLine: 'powershell whoami', Computer: 'a' }), '{broken', JSON.stringify({ EventID: 7 })),
);

async function run(h: Harness, units: readonly (readonly string[])[]): Promise<string[]> {
  const m = h.ctx.metrics;
  const queue = new InputQueue(10_000, { depth: m.svc_input_queue_depth, backPressure: m.svc_back_pressure_events_total });
  const pipeline = new EventPipeline(h.ctx, {
    queue,
    processor: h.processor,
    sinks: [],
    store: h.store,
    batchSize: 3,
    snapshotPolicy: { every: 1_000_000, intervalMs: 1_000_000_000 },
    snapshot: () => Promise.resolve(),
  });
  pipeline.start();
  for (const lines of units) await queue.offer({ lines, rejected: [] });
  queue.close();
  await pipeline.done();
  return h.store.readOutbox('s', 100_000).map((e) => String(e.payload));
}

describe('parallel detection, ordered application', () => {
  it('gives the outbox of inline detection whatever order batches finish in', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(line, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 25 }),
        fc.array(fc.nat({ max: 4 }), { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 1, max: 6 }),
        async (units, delays, parallelism) => {
          const expected = await run(await openHarness(ruleSet), units);
          const actual = await run(await openHarness(ruleSet, undefined, scrambled(delays, parallelism)), units);
          expect(actual).toEqual(expected);
        },
      ),
      { numRuns: 60 },
    );
  });
});
