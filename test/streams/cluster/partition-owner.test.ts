// What a partition owner reports while results wait (issue 21): a fetched hit waiting for the input or
// correlation floor is lag, and the partition's floor reaches an input sequence only once its results
// are at every sink. A wait for "lag 0" used to pass while a fetched result still waited for the
// correlation floor (the cluster-silences e2e flake).
import type { JsMsg } from '@nats-io/jetstream';
import { describe, expect, it } from 'vitest';
import type { ClusterBus } from '../../../streams/cluster/index.js';
import type { HitBatch } from '../../../streams/cluster/cluster-bus.js';
import type { HitBody } from '../../../streams/cluster/hit-router.js';
import { PartitionOwner } from '../../../streams/cluster/partition-owner.js';
import { sleep } from '../../../streams/stage-context.js';
import { SimulatedClock, testContext } from '../support.js';

function message(seq: number, body: HitBody): JsMsg {
  return { seq, json: () => body } as unknown as JsMsg;
}

describe('a partition owner', () => {
  it('counts a fetched result waiting for a floor as lag, and moves its floor once the result is at every sink', async () => {
    const clock = new SimulatedClock();
    const stored: JsMsg[] = [];
    const bus = {
      loadSnapshot: () => Promise.resolve(null),
      saveSnapshot: () => Promise.resolve(),
      hitFeed: () =>
        Promise.resolve({
          fetch: async (_max: number, expiresMs: number): Promise<HitBatch> => {
            if (stored.length === 0) await sleep(clock, expiresMs);
            return { msgs: stored.splice(0), pending: 0, drained: true };
          },
          close: () => Promise.resolve(),
        }),
    } as unknown as ClusterBus;
    const floors = { input: 4, correlation: 2 };
    let delivered = true;
    const emitted: string[] = [];
    const owner = new PartitionOwner({
      partition: 0,
      partitions: 1,
      consumer: 'n-g1',
      bus,
      defs: [],
      options: {},
      deliver: (results) => {
        emitted.push(...results.map((r) => r.result_id));
        return Promise.resolve(emitted.length - 1);
      },
      delivered: () => delivered,
      inputFloor: () => Promise.resolve(floors.input),
      leased: () => true,
      snapshotIntervalMs: 60_000,
      ctx: testContext(clock),
      stateful: {
        files: () => ({ alert: undefined, risk: undefined }),
        selectors: () => [],
        publish: () => Promise.resolve(),
        record: () => Promise.resolve(),
        writeFloor: () => Promise.resolve(),
        correlationFloor: () => floors.correlation,
        silences: { changesAfter: () => [] },
      },
    });
    expect(await owner.start()).toBe(true);
    // A correlation result another partition forwarded for input 4.
    const text = JSON.stringify({ result_id: 'h1-4-0', rule_title: 'r' });
    stored.push(message(1, { s: 4, m: [], e: {}, t: clock.now(), o: 1, r: [{ i: 'h1-4-0', h: { rule_title: 'r', rule_id: 'r', level: 'high' }, x: text }] }));
    await clock.advance(1_100);
    expect(owner.status).toMatchObject({ hit_seq: 1, lag: 1, floor: 2 });
    expect(emitted).toEqual([]);

    // Every partition's correlation floor passed input 4: the result applies, but the sinks are behind.
    floors.correlation = 4;
    delivered = false;
    // The fetch under way read the floors before it began: the next one applies.
    await clock.advance(2_200);
    expect(emitted).toEqual(['h1-4-0']);
    expect(owner.status).toMatchObject({ lag: 0, floor: 2 });

    delivered = true;
    expect(owner.status).toMatchObject({ lag: 0, floor: 4 });
    // Stopping waits for the fetch under way.
    const stopped = owner.stop(false, 0);
    await clock.advance(1_100);
    await stopped;
    expect(owner.ended).toBe(true);
  });
});
