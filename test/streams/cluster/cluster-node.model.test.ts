// Cluster nodes (issue 21) over a simulated lease bucket whose requests may hang: a node's
// connection gets stuck (every request it makes from then on never answers) and comes back later,
// while time passes. Whatever hangs, no two nodes report (or act on) one partition at the same
// instant, and once no request hangs any more every node is a member again and every partition is
// owned by exactly one node. A round that awaited a request which never answers used to stall for
// good: its node left the membership but kept reporting the owners it no longer renewed.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LeaseAction } from '../../../actors/index.js';
import { ClusterNode } from '../../../streams/cluster/index.js';
import type { ClusterBus } from '../../../streams/cluster/index.js';
import type { HitBatch } from '../../../streams/cluster/cluster-bus.js';
import { sleep } from '../../../streams/stage-context.js';
import type { Clock } from '../../../streams/index.js';
import { SimulatedClock, testContext } from '../support.js';

const TTL_MS = 1_000;
/** Clock skew of each node, within the margin the nodes derive from the ttl (a tenth). */
const MAX_SKEW = 45;

interface World {
  readonly clock: SimulatedClock;
  rev: number;
  readonly kv: Map<string, { readonly value: string; readonly rev: number }>;
}

interface SimNode {
  readonly id: string;
  /** Every request made while set never answers. */
  stuck: boolean;
  readonly node: ClusterNode;
}

const never = <T>(): Promise<T> => new Promise<T>(() => undefined);

/** The lease bucket as one node's connection reaches it: revision-checked writes, answered at once unless stuck. */
function busOf(world: World, sim: { stuck: boolean }, clock: Clock): ClusterBus {
  const request = <T>(f: () => T): Promise<T> => (sim.stuck ? never<T>() : Promise.resolve().then(f));
  const put = (key: string, value: string): number => {
    world.rev++;
    world.kv.set(key, { value, rev: world.rev });
    return world.rev;
  };
  const entries = (prefix: string) => [...world.kv].filter(([k]) => k.startsWith(prefix)).map(([k, e]) => ({ name: k.slice(prefix.length), ...e, v: JSON.parse(e.value) as { owner: string; until: number } }));
  return {
    publishHits: () => request(() => undefined),
    leases: () => request(() => new Map(entries('p.').map((e) => [Number(e.name), { owner: e.v.owner, until: e.v.until, rev: e.rev }]))),
    members: (now) => request(() => entries('m.').filter((e) => e.v.until > now).map((e) => e.name).sort()),
    heartbeat: (node, until) => request(() => void put(`m.${node}`, JSON.stringify({ until }))),
    leave: (node) => request(() => void world.kv.delete(`m.${node}`)),
    writeLease: (action: LeaseAction, node) =>
      request(() => {
        const key = `p.${action.partition}`;
        if (world.kv.get(key)?.rev !== action.rev) return undefined;
        return put(key, JSON.stringify(action.kind === 'release' ? { owner: '', until: 0 } : { owner: node, until: action.until }));
      }),
    loadSnapshot: () => request(() => null),
    saveSnapshot: () => request(() => undefined),
    inputFloor: () => request(() => 0),
    writeFloor: () => request(() => undefined),
    watchFloors: () => request(() => ({ floor: () => 0, stop: () => undefined })),
    followSilences: () => never(),
    hitFeed: () =>
      request(() => ({
        // No hits: a fetch waits its expiry out, as JetStream's does.
        fetch: (_max: number, expiresMs: number): Promise<HitBatch> => (sim.stuck ? never() : sleep(clock, expiresMs).then(() => ({ msgs: [], pending: 0, drained: true }))),
        close: () => request(() => undefined),
      })),
    close: () => request(() => undefined),
  };
}

function simulation(nodes: number, partitions: number, skews: readonly number[]): { world: World; nodes: SimNode[] } {
  const world: World = { clock: new SimulatedClock(), rev: 0, kv: new Map() };
  const sims = Array.from({ length: nodes }, (_, i): SimNode => {
    const skew = skews[i] ?? 0;
    const clock: Clock = { now: () => world.clock.now() + skew, setTimer: (fn, ms) => world.clock.setTimer(fn, ms) };
    const flags = { stuck: false };
    const node = new ClusterNode(
      { node: `node-${i}`, partitions, leaseTtlMs: TTL_MS, snapshotIntervalMs: 60_000 },
      { bus: busOf(world, flags, clock), rules: () => ({ defs: [], options: {} }), deliver: () => Promise.resolve(0), delivered: () => true, inputFloor: () => Promise.resolve(0), ctx: testContext(clock) },
    );
    return Object.defineProperty({ id: `node-${i}`, node } as SimNode, 'stuck', { get: () => flags.stuck, set: (v: boolean) => (flags.stuck = v), enumerable: true });
  });
  return { world, nodes: sims };
}

/** No partition reported by two nodes. */
function assertOneOwner(nodes: readonly SimNode[], partitions: number, at: number): void {
  for (let p = 0; p < partitions; p++) {
    const owners = nodes.filter((n) => n.node.status().owned.some((o) => o.partition === p)).map((n) => n.id);
    expect(owners.length, `partition ${p} reported by ${owners.join(',')} at ${at}`).toBeLessThanOrEqual(1);
  }
}

type Model = Record<string, never>;
interface Real {
  readonly world: World;
  readonly nodes: SimNode[];
  readonly partitions: number;
}
type Cmd = fc.AsyncCommand<Model, Real>;

class Advance implements Cmd {
  constructor(readonly ms: number) {}
  check = (): boolean => true;
  async run(_m: Model, r: Real): Promise<void> {
    // In small steps, so the invariant is checked between them.
    for (let left = this.ms; left > 0; left -= 100) {
      await r.world.clock.advance(Math.min(100, left));
      assertOneOwner(r.nodes, r.partitions, r.world.clock.now());
    }
  }
  toString = (): string => `advance(${this.ms})`;
}

class Stick implements Cmd {
  constructor(
    readonly node: number,
    readonly stuck: boolean,
  ) {}
  check = (): boolean => true;
  async run(_m: Model, r: Real): Promise<void> {
    (r.nodes[this.node % r.nodes.length] as SimNode).stuck = this.stuck;
    return Promise.resolve();
  }
  toString = (): string => `${this.stuck ? 'stick' : 'unstick'}(${this.node})`;
}

const commands = [
  fc.integer({ min: 50, max: 2_500 }).map((ms) => new Advance(ms)),
  fc.nat(2).map((n) => new Stick(n, true)),
  fc.nat(2).map((n) => new Stick(n, false)),
];

describe('cluster nodes whose requests hang', () => {
  it('never report one partition on two nodes, and settle on every partition owned once no request hangs', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 2, max: 3 }),
        fc.integer({ min: 1, max: 6 }),
        fc.array(fc.integer({ min: -MAX_SKEW, max: MAX_SKEW }), { minLength: 3, maxLength: 3 }),
        fc.commands(commands, { maxCommands: 12 }),
        async (count, partitions, skews, cmds) => {
          const { world, nodes } = simulation(count, partitions, skews);
          for (const n of nodes) await n.node.start();
          await fc.asyncModelRun(() => ({ model: {}, real: { world, nodes, partitions } }), cmds);
          for (const n of nodes) n.stuck = false;
          // Long enough for a hung request to be given up on, leases to lapse and be taken over.
          for (let i = 0; i < 60; i++) {
            await world.clock.advance(100);
            assertOneOwner(nodes, partitions, world.clock.now());
          }
          const ids = nodes.map((n) => n.id);
          for (const n of nodes) expect(n.node.status().members, `${n.id} sees every node as a member`).toEqual(ids);
          const owned = nodes.flatMap((n) => n.node.status().owned.map((o) => o.partition)).sort((a, b) => a - b);
          expect(owned, 'every partition owned once').toEqual(Array.from({ length: partitions }, (_, p) => p));
        },
      ),
      { numRuns: 40 },
    );
  });
});
