// A node of the cluster (issue 21): heartbeats its membership, runs the lease protocol
// (`actors/cluster`) against the bucket every quarter ttl, and starts or stops a partition owner for
// every partition it gains or loses. Stage 1 (detection, hit publishing) runs in the daemon's pipeline.
import { counts, decideLeases, leaseWritten } from '../../actors/index.js';
import type { CorrelationRuntimeOptions, HeldLease, LeaseTiming } from '../../actors/index.js';
import type { ClusterRecord, IncidentRecord } from '../../protocol/index.js';
import type { CompiledCorrelation } from '../../sigma/index.js';
import type { StageContext } from '../stage-context.js';
import type { ClusterBus, FloorWatch } from './cluster-bus.js';
import { PartitionOwner } from './partition-owner.js';
import type { PartitionOwnerDeps, StatefulRouting } from './partition-owner.js';

export interface ClusterNodeSettings {
  readonly node: string;
  readonly partitions: number;
  readonly leaseTtlMs: number;
  readonly snapshotIntervalMs: number;
}

export interface ClusterNodeDeps {
  readonly bus: ClusterBus;
  /** The correlations in force and their runtime options (owners are built with them). */
  readonly rules: () => { readonly defs: readonly CompiledCorrelation[]; readonly options: CorrelationRuntimeOptions };
  readonly deliver: PartitionOwnerDeps['deliver'];
  readonly delivered: PartitionOwnerDeps['delivered'];
  readonly inputFloor: PartitionOwnerDeps['inputFloor'];
  readonly ctx: StageContext;
  /** With an alert pipeline or risk layer: the files the partitions run, the selectors of their state keys and the cluster's API silences. */
  readonly stateful?: Pick<StatefulRouting, 'files' | 'selectors' | 'silences'>;
}


/** Clock difference tolerated between nodes: a tenth of the ttl, at most a second. */
function timingOf(ttlMs: number): LeaseTiming {
  return { ttlMs, marginMs: Math.min(1_000, Math.floor(ttlMs / 10)) };
}

export class ClusterNode {
  private held = new Map<number, HeldLease>();
  private readonly owners = new Map<number, PartitionOwner>();
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
    await Promise.all([...this.owners.values()].map((o) => o.stop(false, 0)));
    this.owners.clear();
    await this.deps.bus.leave(this.settings.node).catch(() => undefined);
    this.floors?.stop();
  }

  /** A reload reaches the partitions already owned: the rules and files now in force, from their next hit on. */
  reload(): void {
    const { defs, options } = this.deps.rules();
    for (const owner of this.owners.values()) owner.reload(defs, options);
  }

  status(): ClusterRecord {
    const owners = [...this.owners.values()];
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

  private async round(leaving: boolean, deadlineMs = 0): Promise<void> {
    const { bus, ctx } = this.deps;
    const { node, partitions } = this.settings;
    const now = ctx.clock.now();
    // Membership outlives a lease: a node whose round ran late stays a member, so fair shares do not flap.
    if (!leaving) await bus.heartbeat(node, now + 2 * this.timing.ttlMs);
    const [leases, members] = await Promise.all([bus.leases(), bus.members(now)]);
    this.members = members.includes(node) || leaving ? members : [...members, node].sort();
    const actions = decideLeases({ self: node, now, partitions, members: this.members, leases, held: this.held, leaving }, this.timing);
    for (const action of actions) {
      // A partition handed back snapshots first, so its next owner starts where this one ends.
      if (action.kind === 'release') await this.dropOwner(action.partition, true, deadlineMs);
      const rev = await bus.writeLease(action, node);
      this.held = leaseWritten(this.held, action, rev);
      if (rev === undefined && action.kind !== 'acquire') this.log.info({ partition: action.partition, action: action.kind }, 'partition lease write refused');
    }
    // An owner whose hit loop failed is replaced from the snapshot: it may have dropped what it fetched.
    for (const [p, o] of [...this.owners]) if (!this.leased(p) || o.ended) await this.dropOwner(p, false, 0);
    if (leaving) return;
    for (const p of this.held.keys()) if (this.leased(p) && !this.owners.has(p)) await this.takeOver(p);
    ctx.metrics.svc_cluster_partitions_owned.set(this.owners.size);
    for (const o of this.owners.values()) ctx.metrics.svc_cluster_partition_lag.set({ partition: String(o.status.partition) }, o.status.lag);
  }

  private async takeOver(partition: number): Promise<void> {
    const { defs, options } = this.deps.rules();
    const owner = new PartitionOwner({
      partition,
      partitions: this.settings.partitions,
      node: this.settings.node,
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
    await owner.start();
    this.deps.ctx.metrics.svc_cluster_takeovers_total.inc();
    this.log.info({ partition, ms: Math.round(performance.now() - started) }, 'partition owned');
  }

  private routing(partition: number, stateful: Pick<StatefulRouting, 'files' | 'selectors' | 'silences'>): StatefulRouting {
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

  private async dropOwner(partition: number, handBack: boolean, deadlineMs: number): Promise<void> {
    const owner = this.owners.get(partition);
    if (owner === undefined) return;
    this.owners.delete(partition);
    await owner.stop(handBack, deadlineMs);
    this.deps.ctx.metrics.svc_cluster_partition_lag.remove({ partition: String(partition) });
    this.log.info({ partition, handBack }, 'partition let go');
  }
}
