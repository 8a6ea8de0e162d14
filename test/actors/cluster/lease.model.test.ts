// The partition lease protocol against a simulated KV bucket (revision-checked writes), nodes with
// skewed clocks, crashes, graceful leaves and lost requests/answers: at no moment do two nodes count
// on one partition, and once messages stop getting lost every partition ends up owned, each live node
// holding at most its fair share.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { counts, decideLeases, fairShare, leaseWritten } from '../../../actors/index.js';
import type { HeldLease, LeaseAction, LeaseRecord, LeaseTiming } from '../../../actors/index.js';

const TIMING: LeaseTiming = { ttlMs: 1_000, marginMs: 100 };
/** Clock skew of each node, within ±MAX_SKEW (< marginMs / 2). */
const MAX_SKEW = 45;

interface SimNode {
  readonly id: string;
  readonly skew: number;
  alive: boolean;
  leaving: boolean;
  held: Map<number, HeldLease>;
  heartbeat: number;
}

interface Sim {
  time: number;
  rev: number;
  readonly partitions: number;
  readonly kv: Map<number, LeaseRecord>;
  readonly nodes: SimNode[];
}

/** Loss of one write: none, the request (never applied), or the answer (applied, node told it failed). */
type Loss = 'none' | 'request' | 'answer';

/** The bucket's revision-checked write: applies when `rev` is the current revision (undefined: create). */
function write(sim: Sim, action: LeaseAction, owner: string): number | undefined {
  const current = sim.kv.get(action.partition);
  if (current?.rev !== action.rev) return undefined;
  sim.rev++;
  sim.kv.set(action.partition, { owner: action.kind === 'release' ? '' : owner, until: action.kind === 'release' ? 0 : action.until, rev: sim.rev });
  return sim.rev;
}

function members(sim: Sim, node: SimNode): string[] {
  const now = sim.time + node.skew;
  return sim.nodes.filter((n) => n.heartbeat + TIMING.ttlMs > now).map((n) => n.id);
}

function round(sim: Sim, node: SimNode, losses: readonly Loss[]): void {
  if (!node.alive) return;
  const now = sim.time + node.skew;
  node.heartbeat = now;
  const actions = decideLeases({ self: node.id, now, partitions: sim.partitions, members: members(sim, node), leases: new Map(sim.kv), held: node.held, leaving: node.leaving }, TIMING);
  actions.forEach((a, i) => {
    const loss = losses[i % Math.max(1, losses.length)] ?? 'none';
    const rev = loss === 'request' ? undefined : write(sim, a, node.id);
    node.held = leaseWritten(node.held, a, loss === 'answer' ? undefined : rev);
  });
  if (node.leaving && node.held.size === 0) {
    node.alive = false;
    node.heartbeat = -Infinity;
  }
}

/** At most one node counts on each partition, by its own clock, at the current instant. */
function assertSafe(sim: Sim): void {
  for (let p = 0; p < sim.partitions; p++) {
    const owners = sim.nodes.filter((n) => n.alive && counts(n.held.get(p), sim.time + n.skew, TIMING)).map((n) => n.id);
    expect(owners.length, `partition ${p} owners ${owners.join(',')} at ${sim.time}`).toBeLessThanOrEqual(1);
  }
}

type Cmd = fc.Command<Sim, Sim>;

class Advance implements Cmd {
  constructor(readonly ms: number) {}
  check = (): boolean => true;
  run(_m: Sim, sim: Sim): void {
    sim.time += this.ms;
    assertSafe(sim);
  }
  toString = (): string => `advance(${this.ms})`;
}

class Round implements Cmd {
  constructor(
    readonly node: number,
    readonly losses: readonly Loss[],
  ) {}
  check = (): boolean => true;
  run(_m: Sim, sim: Sim): void {
    round(sim, sim.nodes[this.node % sim.nodes.length] as SimNode, this.losses);
    assertSafe(sim);
  }
  toString = (): string => `round(${this.node}, ${this.losses.join('/')})`;
}

/** What happens to a node outside its rounds: a crash (its memory lost), a (re)start, or a graceful leave. */
class NodeEvent implements Cmd {
  constructor(
    readonly kind: 'crash' | 'start' | 'leave',
    readonly node: number,
  ) {}
  check = (): boolean => true;
  run(_m: Sim, sim: Sim): void {
    const n = sim.nodes[this.node % sim.nodes.length] as SimNode;
    if (this.kind === 'leave') {
      if (n.alive) n.leaving = true;
      return;
    }
    if (this.kind === 'start' && n.alive) return;
    n.alive = this.kind === 'start';
    n.leaving = false;
    n.held = new Map();
  }
  toString = (): string => `${this.kind}(${this.node})`;
}

const loss = fc.constantFrom<Loss>('none', 'none', 'none', 'request', 'answer');
const commands = [
  fc.integer({ min: 1, max: 700 }).map((ms) => new Advance(ms)),
  fc.tuple(fc.nat(3), fc.array(loss, { maxLength: 4 })).map(([n, l]) => new Round(n, l)),
  fc.tuple(fc.nat(3), fc.array(loss, { maxLength: 4 })).map(([n, l]) => new Round(n, l)),
  fc.tuple(fc.constantFrom<NodeEvent['kind']>('crash', 'start', 'leave'), fc.nat(3)).map(([k, n]) => new NodeEvent(k, n)),
];

function simulation(nodes: number, partitions: number, skews: readonly number[]): Sim {
  return {
    time: 10_000,
    rev: 0,
    partitions,
    kv: new Map(),
    nodes: Array.from({ length: nodes }, (_, i) => ({ id: `node-${i}`, skew: skews[i] ?? 0, alive: i === 0, leaving: false, held: new Map(), heartbeat: -Infinity })),
  };
}

describe('partition leases', () => {
  it('never lets two nodes count on one partition, and settles on every partition owned within fair shares', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 1, max: 12 }),
        fc.array(fc.integer({ min: -MAX_SKEW, max: MAX_SKEW }), { minLength: 4, maxLength: 4 }),
        fc.commands(commands, { maxCommands: 80, size: 'large' }),
        (nodes, partitions, skews, cmds) => {
          const sim = simulation(nodes, partitions, skews);
          fc.modelRun(() => ({ model: sim, real: sim }), cmds);
          // Quiet network from here: live nodes (a leaving one finishes leaving) run rounds as time passes.
          for (const n of sim.nodes) n.leaving = false;
          if (!sim.nodes.some((n) => n.alive)) (sim.nodes[0] as SimNode).alive = true;
          for (let r = 0; r < 12; r++) {
            sim.time += TIMING.ttlMs / 2 + 1;
            for (const n of sim.nodes) round(sim, n, []);
            assertSafe(sim);
          }
          const live = sim.nodes.filter((n) => n.alive);
          const share = fairShare(partitions, live.length);
          for (let p = 0; p < partitions; p++) {
            const owners = live.filter((n) => counts(n.held.get(p), sim.time + n.skew, TIMING));
            expect(owners.length, `partition ${p} is owned`).toBe(1);
          }
          for (const n of live) expect([...n.held.values()].filter((h) => counts(h, sim.time + n.skew, TIMING)).length).toBeLessThanOrEqual(share);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('hands every partition back on leave, so another node takes them without waiting for a lapse', () => {
    const sim = simulation(2, 4, [0, 0]);
    round(sim, sim.nodes[0] as SimNode, []);
    expect((sim.nodes[0] as SimNode).held.size).toBe(4);
    (sim.nodes[0] as SimNode).leaving = true;
    round(sim, sim.nodes[0] as SimNode, []);
    expect((sim.nodes[0] as SimNode).alive).toBe(false);
    (sim.nodes[1] as SimNode).alive = true;
    sim.time += 1;
    round(sim, sim.nodes[1] as SimNode, []);
    expect([...(sim.nodes[1] as SimNode).held.keys()].sort()).toEqual([0, 1, 2, 3]);
  });

  it('takes over a crashed node\'s partitions only after its lease lapsed by the margin', () => {
    const sim = simulation(2, 2, [0, 0]);
    round(sim, sim.nodes[0] as SimNode, []);
    (sim.nodes[0] as SimNode).alive = false;
    (sim.nodes[1] as SimNode).alive = true;
    sim.time += TIMING.ttlMs;
    round(sim, sim.nodes[1] as SimNode, []);
    expect((sim.nodes[1] as SimNode).held.size).toBe(0);
    sim.time += TIMING.marginMs + 1;
    round(sim, sim.nodes[1] as SimNode, []);
    expect((sim.nodes[1] as SimNode).held.size).toBe(2);
  });
});
