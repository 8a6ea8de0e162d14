// Cluster mode's two stages against one node (issue 21): the shared input consumer spreads messages
// over the nodes' waiting pulls (nats-server hands them out in turn, so a node's batch is every third
// message), a node may die after publishing part of a batch's hits, and its batch is then delivered
// again to another node after later batches, and a partition may change owners midway (a snapshot
// handed back, the next owner reading on from it). The partition owners, applying the hits in input
// order, must emit exactly what one correlation runtime fed the events in input order emits, out-of-order
// event times included: lateness and window edges follow the newest event before each one.
import type { JsMsg } from '@nats-io/jetstream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CorrelationRuntime } from '../../../actors/correlation/index.js';
import { compileCorrelations } from '../../../sigma/correlation/index.js';
import type { ClusterBus, Hit } from '../../../streams/cluster/cluster-bus.js';
import { HitRouter, readSteps } from '../../../streams/cluster/hit-router.js';
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
    correlationRule({ id: 'supp', type: 'event_count', rules: ['r0'], groupBy: ['host'], condition: { ops: { gte: 2 } }, options: { suppress: '45s' } }),
    correlationRule({ id: 'reset', type: 'event_count', rules: ['r1'], groupBy: [], condition: { ops: { gte: 2 } }, options: { action: 'reset', suppress: '30s' } }),
    correlationRule({ id: 'order', type: 'temporal_ordered', rules: ['r0', 'r1'], groupBy: ['host'] }),
    correlationRule({ id: 'both', type: 'temporal', rules: ['r0', 'r1'], groupBy: ['host'], timespanMs: 30_000 }),
    correlationRule({ id: 'tumble', type: 'event_count', rules: ['r1'], groupBy: ['host'], condition: { ops: { gte: 2 } }, options: { window: 'tumbling' } }),
    correlationRule({ id: 'sess', type: 'event_count', rules: ['r0'], groupBy: [], condition: { ops: { gte: 4 } }, options: { window: 'session', gap: '25s' } }),
    correlationRule({ id: 'hosts', type: 'value_count', rules: ['r0', 'r1'], groupBy: [], condition: { field: ['host'], ops: { gte: 3 } } }),
  ],
  detections(2),
);
if (set.errors.length > 0) throw new Error(set.errors.map(String).join('\n'));

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
  /** The node whose pull gets each input message (cycled): the shared consumer spreads the input over the nodes' waiting pulls. */
  readonly pulls: readonly number[];
  /** Batch sizes (cycled): each node cuts the messages it got into batches. */
  readonly sizes: readonly number[];
  /** Per batch (cycled): how many batches later it is processed, and whether its node dies after publishing `kept` of its hits (the batch is then delivered again to the next node). */
  readonly plan: readonly { readonly delay: number; readonly dies: boolean; readonly kept: number }[];
}

/** The hits the stage-1 routers publish, in publish order; a hit id already stored is dropped (the stream's duplicate window). */
function stageOne(events: readonly LaneEvent[], d: Delivery): Hit[] {
  const routers = Array.from({ length: NODES }, () => new HitRouter(PARTITIONS, () => ({}), () => false));
  const got: number[][] = Array.from({ length: NODES }, () => []);
  events.forEach((_, i) => (got[d.pulls[i % d.pulls.length] as number] as number[]).push(i));
  const batches: { node: number; lines: number[] }[] = [];
  got.forEach((lines, node) => {
    for (let i = 0, k = 0; i < lines.length; k++) {
      const size = d.sizes[(batches.length + k) % d.sizes.length] as number;
      batches.push({ node, lines: lines.slice(i, i + size) });
      i += size;
    }
  });
  batches.sort((a, b) => (a.lines[0] as number) - (b.lines[0] as number));
  const order = batches.map((b, i) => ({ ...b, at: i + (d.plan[i % d.plan.length] as Delivery['plan'][number]).delay, plan: d.plan[i % d.plan.length] as Delivery['plan'][number] })).sort((a, b) => a.at - b.at);
  const stored = new Set<string>();
  const published: Hit[] = [];
  const publish = (hits: readonly Hit[]): void => {
    for (const h of hits) {
      if (h.id !== undefined && stored.has(h.id)) continue;
      if (h.id !== undefined) stored.add(h.id);
      published.push(h);
    }
  };
  const route = (node: number, lines: readonly number[]): Hit[] => {
    const correlate = lines.map((i, line): CorrelationInput => ({ line, matched: matchedOf(events[i] as LaneEvent), event: eventOf(events[i] as LaneEvent, i) }));
    return (routers[node] as HitRouter).route(set.correlations, correlate, lines.map((i) => i + 1), 0);
  };
  for (const b of order) {
    const hits = route(b.node, b.lines);
    if (b.plan.dies) {
      publish(hits.slice(0, b.plan.kept));
      routers[b.node] = new HitRouter(PARTITIONS, () => ({}), () => false);
      publish(route((b.node + 1) % NODES, b.lines));
    } else publish(hits);
  }
  return published;
}

/**
 * What the partition owners emit once every input message is acknowledged. With `cuts`, each partition's
 * first owner sees only the first `cut` of its hits, with the input floor as far as they reach (every
 * hit and tick for input at or below it is among them, as the shared consumer's acknowledgements guarantee), then
 * hands the partition back (a snapshot) to a second owner that reads on from it: results by id, since a
 * sink drops a result id it already has.
 */
async function stageTwo(hits: readonly Hit[], lastInput: number, cuts: readonly number[] = []): Promise<string[]> {
  const out = new Map<string, string>();
  for (let partition = 0; partition < PARTITIONS; partition++) {
    const mine = hits.filter((h) => h.partition === partition).map((h, i) => ({ seq: i + 1, body: JSON.parse(h.body) as HitBody }));
    const cut = Math.min(mine.length, cuts[partition % Math.max(1, cuts.length)] ?? mine.length);
    let snapshot: Uint8Array | null = null;
    const own = async (visible: number, floor: number, consumer: string): Promise<void> => {
      const clock = new SimulatedClock();
      const bus = {
        loadSnapshot: () => Promise.resolve(snapshot),
        saveSnapshot: (_p: number, data: Uint8Array) => {
          snapshot = data;
          return Promise.resolve();
        },
        hitFeed: (_p: number, afterSeq: number) => {
          let next = afterSeq;
          return Promise.resolve({
            fetch: async (max: number, expiresMs: number) => {
              const msgs = mine.slice(next, Math.min(visible, next + max)).map((m) => ({ seq: m.seq, json: () => m.body }) as unknown as JsMsg);
              next += msgs.length;
              if (msgs.length === 0) await sleep(clock, expiresMs);
              return { msgs, pending: visible - next, drained: next >= visible };
            },
            close: () => Promise.resolve(),
          });
        },
      } as unknown as ClusterBus;
      const owner = new PartitionOwner({
        partition,
        partitions: PARTITIONS,
        consumer,
        bus,
        defs: set.correlations,
        options: {},
        deliver: (results) => {
          for (const r of results) {
            const { result_id: id, ...rest } = JSON.parse(r.text) as Record<string, unknown>;
            const text = JSON.stringify(rest);
            expect(out.get(String(id)) ?? text, 'a result id emitted again is the same result').toBe(text);
            out.set(String(id), text);
          }
          return Promise.resolve(out.size - 1);
        },
        delivered: () => true,
        inputFloor: () => Promise.resolve(floor),
        leased: () => true,
        snapshotIntervalMs: 3_600_000,
        ctx: testContext(clock),
      });
      expect(await owner.start()).toBe(true);
      await clock.advance(2_500);
      const stopped = owner.stop(true, 1_000);
      await clock.advance(1_100);
      await stopped;
    };
    // The floor the first owner may see: below every input sequence a hit it cannot see yet speaks for (a
    // tick's steps included: the tick is published before any input of its batch is acknowledged).
    const unseen = mine.slice(cut).flatMap((m) => [m.body.s, ...readSteps(m.body.p ?? []).map(([seq]) => seq)]).filter((seq) => seq >= 0);
    await own(cut, Math.min(lastInput, (unseen.length > 0 ? Math.min(...unseen) : lastInput + 1) - 1), `first-${partition}`);
    if (cut < mine.length) await own(mine.length, lastInput, `second-${partition}`);
  }
  return [...out.values()];
}

const laneArb = fc.array(fc.record({ host: fc.nat(2), rule: fc.nat(1), behindS: fc.constantFrom(0, 0, 0, 0, 40, 90) }), { minLength: 1, maxLength: 60 });
const deliveryArb = fc.record({
  pulls: fc.oneof(fc.constant([0, 1, 2]), fc.array(fc.nat(NODES - 1), { minLength: 1, maxLength: 30 })),
  sizes: fc.array(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 20 }),
  plan: fc.array(fc.record({ delay: fc.constantFrom(0, 0, 0, 1, 3, 6), dies: fc.boolean(), kept: fc.nat(6) }), { minLength: 1, maxLength: 20 }),
});

/** Correlations that fired in some lane. */
const fired = new Set<string>();

describe('cluster stages against one node', () => {
  it('partition owners emit what one runtime emits, with batches on several nodes, delivered late and again after a node dies, and partitions handed over midway', async () => {
    await fc.assert(
      fc.asyncProperty(laneArb, deliveryArb, fc.array(fc.nat(40), { minLength: 1, maxLength: PARTITIONS }), async (events, delivery, cuts) => {
        const got = await stageTwo(stageOne(events, delivery), events.length, cuts);
        const want = single(events);
        for (const w of want) fired.add((JSON.parse(w) as { rule_id: string }).rule_id);
        expect(got.sort()).toEqual(want.sort());
      }),
      { numRuns: 400 },
    );
    // The lanes made every correlation fire somewhere.
    expect([...fired].sort()).toEqual(set.correlations.map((c) => c.rule.id).sort());
  });
});
