// Stage 2 of cluster mode for one partition (issue 21): load the partition's snapshot, replay its hits
// from the sequence the snapshot covers, then apply hits as they come. Results carry ids derived from
// hit sequences, so a replay after a takeover re-emits exactly the ids the previous owner did (sinks
// deduplicate by id; NATS sinks use it as `Nats-Msg-Id`).
import { CorrelationRuntime, decode, encode } from '../../actors/index.js';
import type { CorrelationRuntimeOptions } from '../../actors/index.js';
import { resultIdForHit } from '../../state/index.js';
import type { CommittedResult } from '../batch-processor.js';
import { TICK_EVERY_MS } from '../batch-processor.js';
import { sleep } from '../stage-context.js';
import type { StageContext } from '../stage-context.js';
import type { ClusterBus, HitFeed } from './cluster-bus.js';
import type { HitBody } from './hit-router.js';
import { groupPartition } from './hit-router.js';

/** Hits applied per fetch. */
const FETCH_MAX = 256;
const FETCH_EXPIRES_MS = 1_000;
const SNAPSHOT_VERSION = 1;

/** A partition snapshot: the groups after the hit at `seq`, and the tick frontier then. */
interface PartitionSnapshot {
  readonly v: number;
  readonly seq: number;
  readonly tickedAt: number;
  readonly groups: unknown;
}

export interface PartitionOwnerDeps {
  readonly partition: number;
  readonly partitions: number;
  readonly node: string;
  readonly bus: ClusterBus;
  /** Runtime options of the rules in force (timestamps, fallback, cap). */
  readonly options: CorrelationRuntimeOptions;
  readonly defs: CorrelationRuntime['definitions'];
  /** Commits the results to the node's outbox and hands them to its sinks; resolves with the outbox sequence of the last. */
  readonly deliver: (results: readonly CommittedResult[]) => Promise<number>;
  /** Whether every sink has the outbox entries up to `oseq` (a snapshot only covers delivered results). */
  readonly delivered: (oseq: number) => boolean;
  /** Whether this node may still count on the partition's lease. */
  readonly leased: () => boolean;
  readonly snapshotIntervalMs: number;
  readonly ctx: StageContext;
}

export class PartitionOwner {
  private readonly runtime: CorrelationRuntime;
  /** Hit sequence of the last hit applied. */
  private seq = 0;
  private snapshotSeq = 0;
  private tickedAt = -1;
  private frontier = -1;
  private lag = 0;
  private stopped = false;
  private loop: Promise<void> = Promise.resolve();
  private feed: HitFeed | undefined;
  private lastSnapshotAt = 0;
  /** Outbox sequence of the last result this owner committed. */
  private lastOseq = -1;
  private readonly log: StageContext['log'];

  constructor(private readonly deps: PartitionOwnerDeps) {
    const { partition, partitions } = deps;
    this.log = deps.ctx.log.child({ component: 'cluster', partition });
    this.runtime = new CorrelationRuntime(deps.defs, {
      ...deps.options,
      owns: (def, id) => groupPartition(def, id, partitions) === partition,
      record: (_key, e) => {
        if (e.kind === 'hit' && e.at > this.frontier) this.frontier = e.at;
      },
    });
  }

  get status(): { partition: number; hit_seq: number; lag: number; snapshot_seq: number; groups: number } {
    return { partition: this.deps.partition, hit_seq: this.seq, lag: this.lag, snapshot_seq: this.snapshotSeq, groups: this.runtime.stateEntries };
  }

  groups(): ReturnType<CorrelationRuntime['groupSnapshots']> {
    return this.runtime.groupSnapshots();
  }

  /** Loads the snapshot and starts applying hits after it; resolves once the feed is open. */
  async start(): Promise<void> {
    const { bus, partition, node } = this.deps;
    const data = await bus.loadSnapshot(partition);
    if (data !== null) {
      const snap = JSON.parse(new TextDecoder().decode(data)) as PartitionSnapshot;
      if (snap.v === SNAPSHOT_VERSION) {
        this.runtime.restore(decode(snap.groups, (h) => this.runtime.definitionByHash(h)).groups);
        this.seq = snap.seq;
        this.snapshotSeq = snap.seq;
        this.tickedAt = snap.tickedAt;
        this.frontier = snap.tickedAt;
      } else this.log.warn({ version: snap.v }, 'partition snapshot of an unknown version; starting the partition empty');
    }
    this.lastSnapshotAt = this.deps.ctx.clock.now();
    this.feed = await bus.hitFeed(partition, this.seq, node);
    this.log.info({ fromSeq: this.seq + 1, groups: this.runtime.stateEntries }, 'partition taken over; replaying its hits');
    this.loop = this.run(this.feed);
  }

  /**
   * Stops applying hits. `handBack`: the lease is still ours (a release), so once what was emitted
   * reached the sinks a final snapshot lets the next owner start where this one ends.
   */
  async stop(handBack: boolean, deadlineMs: number): Promise<void> {
    this.stopped = true;
    await this.loop;
    await this.feed?.close();
    if (!handBack) return;
    const until = this.deps.ctx.clock.now() + deadlineMs;
    while (!this.deps.delivered(this.lastOseq) && this.deps.ctx.clock.now() < until) await sleep(this.deps.ctx.clock, 20);
    if (this.deps.delivered(this.lastOseq)) await this.snapshot();
  }

  private async run(feed: HitFeed): Promise<void> {
    const { ctx } = this.deps;
    let failures = 0;
    while (!this.stopped && this.deps.leased()) {
      let msgs;
      try {
        msgs = await feed.fetch(FETCH_MAX, FETCH_EXPIRES_MS);
        failures = 0;
      } catch (error) {
        if (this.stopped) return;
        this.log.debug({ err: error }, 'hit fetch failed');
        await sleep(ctx.clock, Math.min(2_000, 100 * 2 ** Math.min(5, failures++)), ctx.signal);
        continue;
      }
      // A lease that lapsed while fetching: what was fetched is the next owner's.
      if (this.stopped || !this.deps.leased()) return;
      const results: CommittedResult[] = [];
      for (const m of msgs) {
        if (m.seq <= this.seq) continue;
        this.apply(m.seq, m.json<HitBody>(), results);
        this.seq = m.seq;
        this.lag = m.info.pending;
      }
      if (msgs.length === 0) this.lag = 0;
      if (results.length > 0) this.lastOseq = await this.deps.deliver(results);
      if (ctx.clock.now() - this.lastSnapshotAt >= this.deps.snapshotIntervalMs && this.seq > this.snapshotSeq && this.deps.delivered(this.lastOseq)) await this.snapshot();
    }
  }

  /** One hit, ticking the partition's groups on at the same event-time steps as a single node. */
  private apply(seq: number, hit: HitBody, out: CommittedResult[]): void {
    let n = 0;
    for (const result of this.runtime.onEvent(hit.m, hit.e, hit.t)) {
      const result_id = resultIdForHit(this.deps.partition, seq, n++);
      out.push({ result_id, head: result, text: JSON.stringify({ result_id, ...result }) });
    }
    if (this.frontier >= 0 && this.frontier - this.tickedAt >= TICK_EVERY_MS) {
      this.tickedAt = this.frontier;
      this.runtime.tick(this.frontier);
    }
  }

  private async snapshot(): Promise<void> {
    const snap: PartitionSnapshot = { v: SNAPSHOT_VERSION, seq: this.seq, tickedAt: this.tickedAt, groups: encode(this.runtime.snapshot()) };
    try {
      await this.deps.bus.saveSnapshot(this.deps.partition, new TextEncoder().encode(JSON.stringify(snap)));
      this.snapshotSeq = this.seq;
      this.lastSnapshotAt = this.deps.ctx.clock.now();
    } catch (error) {
      this.log.warn({ err: error }, 'partition snapshot failed; the next owner replays from the previous one');
    }
  }
}
