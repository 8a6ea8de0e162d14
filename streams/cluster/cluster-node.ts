// A node of the cluster (issue 21): heartbeats its membership, runs the lease protocol
// (`actors/cluster`) against the bucket every quarter ttl, and starts or stops a partition owner for
// every partition it gains or loses. Stage 1 (detection, hit publishing) runs in the daemon's pipeline.
// A round never waits on something that may not answer: each request it makes is given up on after a
// ttl (the round fails, is logged naming the request, and the next one starts over), and owners start
// and stop beside it. A round that waited for good once left its node out of the membership, reporting
// owners whose leases it no longer renewed; now a partition is reported only while its lease counts.
import { counts, decideLeases, leaseWritten } from '../../actors/index.js';
import type { CorrelationRuntimeOptions, HeldLease, LeaseTiming } from '../../actors/index.js';
import type { ClusterRecord, IncidentRecord } from '../../protocol/index.js';
import type { CompiledCorrelation } from '../../sigma/index.js';
import type { Clock, StageContext } from '../stage-context.js';
import { unixSeconds } from '../journaled-stage.js';
import type { ClusterBus, FloorWatch } from './cluster-bus.js';
import type { ClusterSilences } from './cluster-silences.js';
import { PartitionOwner } from './partition-owner.js';
import type { PartitionOwnerDeps, StatefulRouting } from './partition-owner.js';

export interface ClusterNodeSettings {
  readonly node: string;
  readonly partitions: number;
  readonly leaseTtlMs: number;
  readonly snapshotIntervalMs: number;
}

/** What a node runs the partitions' alert pipeline and risk layer with. */
type NodeStateful = Pick<StatefulRouting, 'files' | 'selectors'> & { readonly silences: Pick<ClusterSilences, 'changesAfter' | 'sweep'> };

export interface ClusterNodeDeps {
  readonly bus: ClusterBus;
  /** The correlations in force and their runtime options (owners are built with them). */
  readonly rules: () => { readonly defs: readonly CompiledCorrelation[]; readonly options: CorrelationRuntimeOptions };
  readonly deliver: PartitionOwnerDeps['deliver'];
  readonly delivered: PartitionOwnerDeps['delivered'];
  readonly inputFloor: PartitionOwnerDeps['inputFloor'];
  readonly ctx: StageContext;
  /** With an alert pipeline or risk layer: the files the partitions run, the selectors of their state keys and the cluster's API silences (the owner of partition 0 sweeps the expired ones). */
  readonly stateful?: NodeStateful;
}


/** A takeover (snapshot read, hit consumer) not done in this many ttls is given up on and started again. */
const TAKEOVER_TTLS = 4;

/** Clock difference tolerated between nodes: a tenth of the ttl, at most a second. */
function timingOf(ttlMs: number): LeaseTiming {
  return { ttlMs, marginMs: Math.min(1_000, Math.floor(ttlMs / 10)) };
}

/** `op`, or a rejection naming `what` once `ms` passed on `clock` without an answer. */
function within<T>(clock: Clock, ms: number, what: string, op: Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const cancel = clock.setTimer(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
    op.then(
      (value) => {
        cancel();
        resolve(value);
      },
      (error: unknown) => {
        cancel();
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

export class ClusterNode {
  private held = new Map<number, HeldLease>();
  private readonly owners = new Map<number, PartitionOwner>();
  /** Owners let go whose hit loop has not ended yet: a new owner of the partition starts after it (or after a ttl). */
  private readonly stopping = new Map<number, Promise<void>>();
  /** Owners started on this node, naming their hit consumers apart. */
  private generation = 0;
  private members: string[] = [];
  private readonly timing: LeaseTiming;
  private cancelTimer = (): void => undefined;
  private running: Promise<void> = Promise.resolve();
  private stopped = false;
  private readonly log: StageContext['log'];
  private floors: FloorWatch | undefined;

  constructor(
    private readonly settings: ClusterNodeSettings,
    private readonly deps: ClusterNodeDeps,
  ) {
    this.timing = timingOf(settings.leaseTtlMs);
    this.log = deps.ctx.log.child({ component: 'cluster', node: settings.node });
  }

  async start(): Promise<void> {
    if (this.deps.stateful !== undefined) this.floors = await this.deps.bus.watchFloors();
    const every = Math.max(50, Math.floor(this.settings.leaseTtlMs / 4));
    const next = (): void => {
      if (this.stopped) return;
      this.running = this.round(false).catch((error: unknown) => this.log.warn({ err: error }, 'cluster round failed; retrying'));
      void this.running.then(() => {
        if (!this.stopped) this.cancelTimer = this.deps.ctx.clock.setTimer(next, every);
      });
    };
    next();
  }

  /** Graceful leave: every owned partition snapshots and is released, and the membership goes. */
  async stop(deadlineMs: number): Promise<void> {
    this.stopped = true;
    this.cancelTimer();
    await this.running;
    await this.round(true, deadlineMs).catch((error: unknown) => this.log.warn({ err: error }, 'cluster leave failed; partitions move once their leases lapse'));
    await this.step('stop the partition owners', Promise.all([...this.owners.keys()].map((p) => this.dropOwner(p, false, 0)))).catch((error: unknown) => this.log.warn({ err: error }, 'partition owners not stopped'));
    await this.step('leave', this.deps.bus.leave(this.settings.node)).catch(() => undefined);
    this.floors?.stop();
  }

  /** A reload reaches the partitions already owned: the rules and files now in force, from their next hit on. */
  reload(): void {
    const { defs, options } = this.deps.rules();
    for (const owner of this.owners.values()) owner.reload(defs, options);
  }

  /** This node's view; a partition shows while its lease counts (an owner waiting on a late renewal does not act). */
  status(): ClusterRecord {
    const owners = [...this.owners].filter(([p]) => this.leased(p)).map(([, o]) => o);
    return {
      node: this.settings.node,
      partitions: this.settings.partitions,
      members: this.members,
      owned: owners.map((o) => o.status).sort((a, b) => a.partition - b.partition),
      groups: owners.flatMap((o) => o.groups()),
      incidents: owners.flatMap((o) => o.incidents()) as IncidentRecord[],
      risk: owners.flatMap((o) => o.riskEntities()),
    };
  }

  private leased(partition: number): boolean {
    return counts(this.held.get(partition), this.deps.ctx.clock.now(), this.timing);
  }

  /** One request of a round, given up on after a ttl; its time is logged at debug level, so a slow round names its slow request. */
  private async step<T>(what: string, op: Promise<T>, ms = this.timing.ttlMs): Promise<T> {
    const { clock } = this.deps.ctx;
    const began = clock.now();
    try {
      return await within(clock, ms, what, op);
    } finally {
      this.log.debug({ step: what, ms: clock.now() - began }, 'cluster round step');
    }
  }

  private async round(leaving: boolean, deadlineMs = 0): Promise<void> {
    const { bus, ctx } = this.deps;
    const { node, partitions } = this.settings;
    const now = ctx.clock.now();
    // Membership outlives a lease: a node whose round ran late stays a member, so fair shares do not flap.
    if (!leaving) await this.step('heartbeat', bus.heartbeat(node, now + 2 * this.timing.ttlMs));
    const [leases, members] = await this.step('read leases and members', Promise.all([bus.leases(), bus.members(now)]));
    this.members = members.includes(node) || leaving ? members : [...members, node].sort();
    const actions = decideLeases({ self: node, now, partitions, members: this.members, leases, held: this.held, leaving }, this.timing);
    // Each partition's write on its own; a release snapshots first, so the next owner starts where this one ends.
    const written = await Promise.all(
      actions.map(async (action) => {
        if (action.kind === 'release') await this.step(`hand back partition ${action.partition}`, this.dropOwner(action.partition, true, deadlineMs), this.timing.ttlMs + deadlineMs).catch((error: unknown) => this.log.warn({ err: error, partition: action.partition }, 'partition hand-back snapshot not taken; its next owner replays from the previous one'));
        // A write given up on counts as refused: if it landed, the lease comes back as `own` next round.
        const rev = await this.step(`${action.kind} partition ${action.partition}`, bus.writeLease(action, node)).catch((error: unknown) => {
          this.log.warn({ err: error, partition: action.partition }, 'partition lease write given up');
          return undefined;
        });
        return { action, rev };
      }),
    );
    for (const { action, rev } of written) {
      this.held = leaseWritten(this.held, action, rev);
      if (rev === undefined && action.kind !== 'acquire') this.log.info({ partition: action.partition, action: action.kind }, 'partition lease write refused');
    }
    // An owner whose lease stopped counting is let go: another node may take the partition once it lapsed.
    // One whose hit loop failed is replaced from the snapshot: it may have dropped what it fetched.
    for (const [p, o] of [...this.owners]) if (!this.leased(p) || o.ended) void this.dropOwner(p, false, 0).catch((error: unknown) => this.log.warn({ err: error, partition: p }, 'partition owner ended with an error'));
    if (leaving) return;
    for (const p of this.held.keys()) if (this.leased(p) && !this.owners.has(p)) this.takeOver(p);
    ctx.metrics.svc_cluster_partitions_owned.set(this.owners.size);
    for (const o of this.owners.values()) ctx.metrics.svc_cluster_partition_lag.set({ partition: String(o.status.partition) }, o.status.lag);
    if (this.deps.stateful !== undefined && this.leased(0)) {
      const purged = await this.step('sweep expired silences', this.deps.stateful.silences.sweep(unixSeconds(now))).catch((error: unknown) => {
        this.log.warn({ err: error }, 'expired silences not purged; the next round sweeps again');
        return 0;
      });
      if (purged > 0) this.log.info({ purged }, 'expired silences purged from the silence bucket');
    }
    this.log.debug({ ms: ctx.clock.now() - now, members: this.members.length, owned: this.owners.size, actions: actions.length }, 'cluster round');
  }

  /** Starts an owner beside the rounds; one that fails to start ends, and the next round replaces it. */
  private takeOver(partition: number): void {
    const { defs, options } = this.deps.rules();
    const owner = new PartitionOwner({
      partition,
      partitions: this.settings.partitions,
      consumer: `${this.settings.node}-g${++this.generation}`,
      bus: this.deps.bus,
      defs,
      options,
      deliver: this.deps.deliver,
      delivered: this.deps.delivered,
      inputFloor: this.deps.inputFloor,
      leased: () => this.leased(partition),
      snapshotIntervalMs: this.settings.snapshotIntervalMs,
      ctx: this.deps.ctx,
      ...(this.deps.stateful !== undefined ? { stateful: this.routing(partition, this.deps.stateful) } : {}),
    });
    this.owners.set(partition, owner);
    const started = performance.now();
    const previous = this.stopping.get(partition) ?? Promise.resolve();
    const { clock } = this.deps.ctx;
    void within(clock, this.timing.ttlMs, 'the previous owner stopping', previous)
      .catch(() => undefined)
      // A start that does not answer (its snapshot read or consumer) is given up on: the next round starts another.
      .then(() => within(clock, TAKEOVER_TTLS * this.timing.ttlMs, `taking over partition ${partition}`, owner.start()))
      .then(
        (begun) => {
          if (!begun) return;
          this.deps.ctx.metrics.svc_cluster_takeovers_total.inc();
          this.log.info({ partition, ms: Math.round(performance.now() - started) }, 'partition owned');
        },
        (error: unknown) => {
          this.log.warn({ err: error, partition }, 'partition takeover failed; retrying');
          if (this.owners.get(partition) === owner) void this.dropOwner(partition, false, 0).catch(() => undefined);
        },
      );
  }

  private routing(partition: number, stateful: NodeStateful): StatefulRouting {
    const { bus } = this.deps;
    const { partitions } = this.settings;
    return {
      ...stateful,
      publish: (hits) => bus.publishHits(hits),
      record: (hit) => bus.publishHits([hit]),
      writeFloor: (floor) => bus.writeFloor(partition, floor),
      correlationFloor: () => {
        let min = Infinity;
        for (let p = 0; p < partitions; p++) min = Math.min(min, this.floors?.floor(p) ?? 0);
        return min;
      },
    };
  }

  /** Stops the partition's owner (it acts no more at once); resolves once its hit loop ended and, handing back, it snapshotted. */
  private async dropOwner(partition: number, handBack: boolean, deadlineMs: number): Promise<void> {
    const owner = this.owners.get(partition);
    if (owner === undefined) return;
    this.owners.delete(partition);
    this.deps.ctx.metrics.svc_cluster_partition_lag.remove({ partition: String(partition) });
    const stopped = owner.stop(handBack, deadlineMs);
    this.stopping.set(partition, stopped);
    this.log.info({ partition, handBack }, 'partition let go');
    try {
      await stopped;
    } finally {
      if (this.stopping.get(partition) === stopped) this.stopping.delete(partition);
    }
  }
}
