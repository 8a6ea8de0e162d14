// Cluster mode's two stages against one node (issue 21): stage-1 routers on several nodes take
// batches of the shared input as the consumer hands them out, a node may die after publishing part of
// a batch's hits, and its batch is then delivered again to another node after later batches. The
// partition owners, applying the hits in input order, must emit exactly what one correlation runtime
// fed the events in input order emits, out-of-order event times included.
import type { JsMsg } from '@nats-io/jetstream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CorrelationRuntime } from '../../../actors/correlation/index.js';
import { compileCorrelations } from '../../../sigma/correlation/index.js';
import type { ClusterBus, Hit } from '../../../streams/cluster/cluster-bus.js';
import { HitRouter } from '../../../streams/cluster/hit-router.js';
import type { HitBody } from '../../../streams/cluster/hit-router.js';
import { PartitionOwner } from '../../../streams/cluster/partition-owner.js';
import type { CorrelationInput } from '../../../streams/detect/detect-batch.js';
import { sleep } from '../../../streams/stage-context.js';
import { correlationRule, detections } from '../../sigma/correlation/rule-fixtures.js';
import { SimulatedClock, testContext } from '../support.js';

const PARTITIONS = 4;
const NODES = 3;
const T0 = Date.parse('2024-03-01T00:00:00Z');

const set = compileCorrelations(
  [
    correlationRule({ id: 'count', type: 'event_count', rules: ['r0'], groupBy: ['host'], condition: { ops: { gte: 3 } } }),
    correlationRule({ id: 'order', type: 'temporal_ordered', rules: ['r0', 'r1'], groupBy: ['host'] }),
  ],
  detections(2),
);

interface LaneEvent {
  readonly host: number;
  readonly rule: number;
  readonly behindS: number;
}

/** Input sequence `i + 1` is `events[i]`, 10 s of event time after the one before unless it lags. */
function eventOf(e: LaneEvent, i: number): CorrelationInput['event'] {
  return { '@timestamp': new Date(T0 + i * 10_000 - e.behindS * 1_000).toISOString(), host: `h${e.host}` };
}

function matchedOf(e: LaneEvent): CorrelationInput['matched'] {
  return [{ id: `id-r${e.rule}`, name: `r${e.rule}` }] as unknown as CorrelationInput['matched'];
}

/** What one node emits: the events in input order through one runtime. */
function single(events: readonly LaneEvent[]): string[] {
  const rt = new CorrelationRuntime(set.correlations);
  return events.flatMap((e, i) => rt.onEvent(matchedOf(e), eventOf(e, i), 0).map((r) => JSON.stringify(r)));
}

interface Delivery {
  /** Batch sizes, in input order. */
  readonly sizes: readonly number[];
  /** Per batch: the node it goes to first, how many batches later it is processed, and whether that node dies after publishing `kept` of its hits (the batch is then delivered again to the next node). */
  readonly plan: readonly { readonly node: number; readonly delay: number; readonly dies: boolean; readonly kept: number }[];
}

/** The hits the stage-1 routers publish, in publish order; a hit id already stored is dropped (the stream's duplicate window). */
function stageOne(events: readonly LaneEvent[], d: Delivery): Hit[] {
  const routers = Array.from({ length: NODES }, () => new HitRouter(PARTITIONS, () => ({}), () => false));
  const batches: { first: number; size: number }[] = [];
  let first = 0;
  for (const size of d.sizes) {
    if (first >= events.length) break;
    batches.push({ first, size: Math.min(size, events.length - first) });
    first += size;
  }
  if (first < events.length) batches.push({ first, size: events.length - first });
  const order = batches.map((b, i) => ({ ...b, at: i + (d.plan[i % d.plan.length]?.delay ?? 0), plan: d.plan[i % d.plan.length] })).sort((a, b) => a.at - b.at);
  const stored = new Set<string>();
  const published: Hit[] = [];
  const publish = (hits: readonly Hit[]): void => {
    for (const h of hits) {
      if (h.id !== undefined && stored.has(h.id)) continue;
      if (h.id !== undefined) stored.add(h.id);
      published.push(h);
    }
  };
  const route = (node: number, b: { first: number; size: number }): Hit[] => {
    const correlate: CorrelationInput[] = [];
    const sequences: number[] = [];
    for (let line = 0; line < b.size; line++) {
      const e = events[b.first + line] as LaneEvent;
      correlate.push({ line, matched: matchedOf(e), event: eventOf(e, b.first + line) });
      sequences.push(b.first + line + 1);
    }
    return (routers[node] as HitRouter).route(set.correlations, correlate, sequences, 0);
  };
  for (const b of order) {
    const node = b.plan?.node ?? 0;
    const hits = route(node, b);
    if (b.plan?.dies === true) {
      publish(hits.slice(0, b.plan.kept));
      routers[node] = new HitRouter(PARTITIONS, () => ({}), () => false);
      publish(route((node + 1) % NODES, b));
    } else publish(hits);
  }
  return published;
}

/** What the partition owners emit once every input message is acknowledged. */
async function stageTwo(hits: readonly Hit[], lastInput: number): Promise<string[]> {
  const out: string[] = [];
  for (let partition = 0; partition < PARTITIONS; partition++) {
    const clock = new SimulatedClock();
    const mine = hits.filter((h) => h.partition === partition).map((h, i) => ({ seq: i + 1, json: () => JSON.parse(h.body) as HitBody }) as unknown as JsMsg);
    const bus = {
      loadSnapshot: () => Promise.resolve(null),
      saveSnapshot: () => Promise.resolve(),
      hitFeed: () =>
        Promise.resolve({
          fetch: async (_max: number, expiresMs: number) => {
            if (mine.length === 0) await sleep(clock, expiresMs);
            return { msgs: mine.splice(0), pending: 0, drained: true };
          },
          close: () => Promise.resolve(),
        }),
    } as unknown as ClusterBus;
    const owner = new PartitionOwner({
      partition,
      partitions: PARTITIONS,
      consumer: `n-${partition}`,
      bus,
      defs: set.correlations,
      options: {},
      deliver: (results) => {
        for (const r of results) {
          const { result_id: _id, ...rest } = JSON.parse(r.text) as Record<string, unknown>;
          out.push(JSON.stringify(rest));
        }
        return Promise.resolve(out.length - 1);
      },
      delivered: () => true,
      inputFloor: () => Promise.resolve(lastInput),
      leased: () => true,
      snapshotIntervalMs: 3_600_000,
      ctx: testContext(clock),
    });
    expect(await owner.start()).toBe(true);
    await clock.advance(2_500);
    const stopped = owner.stop(false, 0);
    await clock.advance(1_100);
    await stopped;
  }
  return out;
}

const laneArb = fc.array(fc.record({ host: fc.nat(2), rule: fc.nat(1), behindS: fc.constantFrom(0, 0, 0, 0, 40, 90) }), { minLength: 1, maxLength: 60 });
const deliveryArb = fc.record({
  sizes: fc.array(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 20 }),
  plan: fc.array(fc.record({ node: fc.nat(NODES - 1), delay: fc.constantFrom(0, 0, 0, 1, 3, 6), dies: fc.boolean(), kept: fc.nat(6) }), { minLength: 1, maxLength: 20 }),
});

describe('cluster stages against one node', () => {
  it('partition owners emit what one runtime emits, with batches on several nodes, delivered late and again after a node dies', async () => {
    await fc.assert(
      fc.asyncProperty(laneArb, deliveryArb, async (events, delivery) => {
        const got = await stageTwo(stageOne(events, delivery), events.length);
        expect(got.sort()).toEqual(single(events).sort());
      }),
      { numRuns: 150 },
    );
  });
});
