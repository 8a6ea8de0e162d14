// Stage 2 of cluster mode for one partition (issue 21): load the partition's snapshot, replay its hits
// from the hit sequence the snapshot covers, then apply hits as they come. Hits arrive in the order
// stage-1 nodes published them, which interleaves; they are applied in input order instead (by the
// input stream sequence they carry), up to the shared input consumer's acknowledgement floor: every
// input message at or below it has had its hits published. So a partition sees exactly the sequence a
// single node would, and results carry ids derived from input sequences: a replay after a takeover
// re-emits exactly the ids the previous owner did (sinks deduplicate by id; NATS sinks use it as
// `Nats-Msg-Id`).
import { carryOver } from '../correlation-state.js';
import { CorrelationRuntime, decode, encode } from '../../actors/index.js';
import type { CorrelationRuntimeOptions, StateKeySelectors } from '../../actors/index.js';
import { resultIdForHit } from '../../state/index.js';
import type { CommittedResult } from '../batch-processor.js';
import { TICK_EVERY_MS } from '../batch-processor.js';
import { sleep } from '../stage-context.js';
import type { StageContext } from '../stage-context.js';
import type { ClusterBus, HitFeed } from './cluster-bus.js';
import type { Hit } from './cluster-bus.js';
import type { ClusterSilences } from './cluster-silences.js';
import type { HitBody, SequencedResult } from './hit-router.js';
import { groupPartition, readSteps, resultHits } from './hit-router.js';
import { StatefulPartition } from './stateful-partition.js';
import type { StatefulFiles, StatefulSnapshot } from './stateful-partition.js';

/** Hits applied per fetch. */
const FETCH_MAX = 256;
const FETCH_EXPIRES_MS = 1_000;
/** How often a partition whose lease does not count re-checks it. */
const LEASE_WAIT_MS = 50;
/** 3: the alert pipeline and risk state (`st`); version-2 snapshots (correlation groups only) still load. */
const SNAPSHOT_VERSION = 3;

/**
 * A partition snapshot: the groups once every hit of input sequence ≤ `floor` was applied; hits are
 * read again after hit sequence `seq` (hits at or below `floor` are skipped then).
 */
interface PartitionSnapshot {
  readonly v: number;
  readonly seq: number;
  readonly floor: number;
  readonly tickedAt: number;
  /** The runtime's stream time (absent before it was kept: `tickedAt` is the best known then). */
  readonly tm?: number;
  readonly groups: unknown;
  readonly st?: StatefulSnapshot;
}

/**
 * What waits for the input floor: a hit (or tick) at its input sequence `s`, or a stream-time step of
 * a tick (`at`): the newest event time at input `s` in the tick's batch.
 */
type Waiting = { readonly hitSeq: number; readonly s: number } & ({ readonly hit: HitBody; readonly at?: undefined } | { readonly hit?: undefined; readonly at: number });

/** At one input sequence: its stream-time step first (the single node's clock reached the event), then its hits, then a batch's tick. */
function rank(w: Waiting): number {
  return w.hit === undefined ? 0 : w.hit.k === undefined ? 1 : 2;
}

/**
 * Cluster mode with an alert pipeline or risk layer: results go to the partition of their state key
 * (`actors/cluster/state-key.ts`) and its owner runs those stages.
 */
export interface StatefulRouting {
  readonly files: () => StatefulFiles;
  readonly selectors: () => StateKeySelectors;
  /** Publishes correlation results to the partitions of their state keys. */
  readonly publish: (hits: readonly Hit[]) => Promise<void>;
  /** Records this partition's correlation floor: its forwarded results up to it are published. */
  readonly writeFloor: (floor: number) => Promise<void>;
  /** The lowest correlation floor over all partitions (every correlation result of input ≤ it is published). */
  readonly correlationFloor: () => number;
  /** The cluster's API silences as this node follows them. */
  readonly silences: Pick<ClusterSilences, 'changesAfter'>;
  /** Publishes a hit to this partition's own hits (its silence changes). */
  readonly record: (hit: Hit) => Promise<void>;
}

export interface PartitionOwnerDeps {
  readonly partition: number;
  readonly partitions: number;
  /** Names this owner's hit consumer: unique per owner, so an owner let go never touches its successor's. */
  readonly consumer: string;
  readonly bus: ClusterBus;
  /** Runtime options of the rules in force (timestamps, fallback, cap). */
  readonly options: CorrelationRuntimeOptions;
  readonly defs: CorrelationRuntime['definitions'];
  /** Commits the results to the node's outbox and hands them to its sinks; resolves with the outbox sequence of the last. */
  readonly deliver: (results: readonly CommittedResult[]) => Promise<number>;
  /** Whether every sink has the outbox entries up to `oseq` (a snapshot only covers delivered results). */
  readonly delivered: (oseq: number) => boolean;
  /** The shared input consumer's acknowledgement floor (input stream sequence). */
  readonly inputFloor: () => Promise<number>;
  /** Whether this node may still count on the partition's lease. */
  readonly leased: () => boolean;
  readonly snapshotIntervalMs: number;
  readonly ctx: StageContext;
  readonly stateful?: StatefulRouting;
}

export class PartitionOwner {
  private runtime: CorrelationRuntime;
  private readonly stateful: StatefulPartition | undefined;
  /** The correlation floor last written to the bucket. */
  private floorWritten = -1;
  /** Hit sequence of the last hit fetched. */
  private seq = 0;
  /** Every hit of input sequence ≤ floor is applied. */
  private floor = 0;
  /** Fetched hits waiting for the floor, in input order once sorted, and the stream-time steps of fetched ticks. */
  private pending: Waiting[] = [];
  private snapshotSeq = 0;
  private tickedAt = -1;
  /** Hits stored and not fetched yet, as of the last fetch. */
  private unfetched = 0;
  /** Input sequence up to which every hit is applied and its results committed (`oseq`: the outbox sequence of the last). */
  private out = { floor: 0, oseq: -1 };
  /** The newest `out.floor` seen with its results at every sink. */
  private outFloor = 0;
  private stopped = false;
  /** The feed opened and the hits after the snapshot are being applied. */
  private opened = false;
  /** The hit loop failed: what it applied may not be out, so it takes no snapshot. */
  private failed = false;
  /** The hit loop ended (stopped, or a failure: then the node replaces this owner from its snapshot). */
  ended = false;
  private loop: Promise<void> = Promise.resolve();
  private lastSnapshotAt = 0;
  /** Outbox sequence of the last result this owner committed. */
  private lastOseq = -1;
  /** Silence bucket revision of the newest change recorded in (or read back from) this partition's hits. */
  private silencesRecorded = 0;
  /** A fetch drained the feed since the start: the replay after the snapshot is read, so what is recorded is known. */
  private caughtUp = false;
  private readonly log: StageContext['log'];

  constructor(private readonly deps: PartitionOwnerDeps) {
    const { partition, partitions } = deps;
    this.log = deps.ctx.log.child({ component: 'cluster', partition });
    this.runtime = new CorrelationRuntime(deps.defs, this.runtimeOptions(deps.options));
    this.stateful = deps.stateful === undefined ? undefined : new StatefulPartition(deps.stateful.files(), deps.ctx.metrics);
  }

  /** The rules' options for this partition: its own groups only, and its share of the state cap. */
  private runtimeOptions(options: CorrelationRuntimeOptions): CorrelationRuntimeOptions {
    const { partition, partitions } = this.deps;
    return {
      ...options,
      ...(options.maxStateEntries !== undefined ? { maxStateEntries: Math.ceil(options.maxStateEntries / partitions) } : {}),
      owns: (def, id) => groupPartition(def, id, partitions) === partition,
    };
  }

  /**
   * A reload: groups of unchanged correlations carry over (changed ones are dropped, as on a single
   * node), and the alert pipeline and risk files in force are put in force. Takes effect at the next hit.
   */
  reload(defs: CorrelationRuntime['definitions'], options: CorrelationRuntimeOptions): void {
    this.runtime = carryOver(this.runtime, defs, this.runtimeOptions(options)).runtime;
    if (this.stateful !== undefined && this.deps.stateful !== undefined) this.stateful.load(this.deps.stateful.files());
  }

  incidents(): ReturnType<StatefulPartition['incidents']> {
    return this.stateful?.incidents() ?? [];
  }

  riskEntities(): ReturnType<StatefulPartition['riskEntities']> {
    return this.stateful?.riskEntities(this.deps.ctx.clock.now()) ?? [];
  }

  /**
   * `lag`: hits stored and not fetched yet (as of the last fetch) plus hits fetched and waiting for a
   * floor: 0 only once nothing fetched waits. `floor`: every hit of input sequence ≤ it is applied
   * and its results are at every sink; with an alert pipeline or risk layer that includes the
   * correlation results other partitions forwarded here (their owners publish them before moving
   * the correlation floor this partition applies up to).
   */
  get status(): { partition: number; hit_seq: number; lag: number; floor: number; snapshot_seq: number; groups: number; silence_rev: number } {
    if (this.deps.delivered(this.out.oseq)) this.outFloor = this.out.floor;
    return { partition: this.deps.partition, hit_seq: this.seq, lag: this.lag(), floor: this.outFloor, snapshot_seq: this.snapshotSeq, groups: this.runtime.stateEntries, silence_rev: this.stateful?.silenceRev ?? 0 };
  }

  /** Hits not applied yet: not fetched, or fetched and waiting (a tick waits in both lists, counted once). */
  private lag(): number {
    const waiting = new Set(this.pending.map((p) => p.hitSeq));
    for (const seq of this.stateful?.waiting() ?? []) waiting.add(seq);
    return this.unfetched + waiting.size;
  }

  groups(): ReturnType<CorrelationRuntime['groupSnapshots']> {
    return this.runtime.groupSnapshots();
  }

  /**
   * Loads the snapshot and starts applying hits after it; resolves once the feed is open (false: the
   * owner was stopped first). A failure ends the owner.
   */
  start(): Promise<boolean> {
    const opened = this.open();
    this.loop = opened
      .then(async (feed) => {
        if (feed === undefined) return;
        try {
          await this.run(feed);
        } catch (error) {
          this.failed = true;
          throw error;
        } finally {
          await feed.close();
        }
      })
      .finally(() => {
        this.ended = true;
      });
    // The failure is the caller's to report (through `start`'s answer); `stop` waits for the loop regardless.
    this.loop.catch(() => undefined);
    return opened.then((feed) => feed !== undefined);
  }

  private async open(): Promise<HitFeed | undefined> {
    const { bus, partition, consumer } = this.deps;
    const data = await bus.loadSnapshot(partition);
    if (this.stopped) return undefined;
    if (data !== null) {
      const snap = JSON.parse(new TextDecoder().decode(data)) as PartitionSnapshot;
      if (snap.v === SNAPSHOT_VERSION || snap.v === 2) {
        this.runtime.restore(decode(snap.groups, (h) => this.runtime.definitionByHash(h)).groups);
        this.seq = snap.seq;
        this.floor = snap.floor;
        this.snapshotSeq = snap.seq;
        this.tickedAt = snap.tickedAt;
        this.runtime.advanceTo(snap.tm ?? snap.tickedAt);
        // A version-2 snapshot had no such state: the stages start from the floor it covers.
        if (this.stateful !== undefined && this.deps.stateful !== undefined) this.stateful.restore(snap.st ?? { floor: snap.floor, alert: [], risk: [] }, this.deps.stateful.files());
        this.silencesRecorded = this.stateful?.silenceRev ?? 0;
      } else this.log.warn({ version: snap.v }, 'partition snapshot of an unknown version; starting the partition empty');
    }
    this.lastSnapshotAt = this.deps.ctx.clock.now();
    this.out = { floor: this.stateful?.appliedFloor ?? this.floor, oseq: -1 };
    const feed = await bus.hitFeed(partition, this.seq, consumer);
    if (this.stopped) {
      await feed.close();
      return undefined;
    }
    this.opened = true;
    this.log.info({ fromSeq: this.seq + 1, groups: this.runtime.stateEntries }, 'partition taken over; replaying its hits');
    return feed;
  }

  /**
   * Stops applying hits. `handBack`: the lease is still ours (a release), so once what was emitted
   * reached the sinks a final snapshot lets the next owner start where this one ends.
   */
  async stop(handBack: boolean, deadlineMs: number): Promise<void> {
    this.stopped = true;
    await this.loop.catch(() => undefined);
    // An owner that never opened holds no state to hand on, and one that failed may not have delivered what it applied.
    if (!handBack || !this.opened || this.failed) return;
    const until = this.deps.ctx.clock.now() + deadlineMs;
    while (!this.deps.delivered(this.lastOseq) && this.deps.ctx.clock.now() < until) await sleep(this.deps.ctx.clock, 20);
    if (this.deps.delivered(this.lastOseq)) await this.snapshot();
  }

  private async run(feed: HitFeed): Promise<void> {
    const { ctx } = this.deps;
    let failures = 0;
    while (!this.stopped) {
      // A lease that stopped counting (a late renewal under load) is waited for: the node renews it
      // (revision-checked, so nobody owned the partition meanwhile) or lets the partition go.
      if (!this.deps.leased()) {
        await sleep(ctx.clock, LEASE_WAIT_MS);
        continue;
      }
      let batch;
      let floor;
      let correlated = 0;
      try {
        // Read before the fetch: every hit at or below it was published before, so a fetch that drains the feed has them all.
        correlated = this.deps.stateful?.correlationFloor() ?? 0;
        if (this.caughtUp) await this.recordSilences();
        floor = await this.deps.inputFloor();
        batch = await feed.fetch(FETCH_MAX, FETCH_EXPIRES_MS);
        failures = 0;
      } catch (error) {
        if (this.stopped) return;
        this.log.debug({ err: error }, 'hit fetch failed');
        await sleep(ctx.clock, Math.min(2_000, 100 * 2 ** Math.min(5, failures++)), ctx.signal);
        continue;
      }
      // The lease stopped counting while fetching: what was fetched waits for it (or is the next owner's).
      while (!this.stopped && !this.deps.leased()) await sleep(ctx.clock, LEASE_WAIT_MS);
      if (this.stopped) return;
      for (const m of batch.msgs) {
        if (m.seq <= this.seq) continue;
        const hit = m.json<HitBody>();
        this.seq = m.seq;
        // A tick feeds both the correlations and the stateful stages; results and silence changes only the latter.
        if (hit.k !== undefined || hit.r !== undefined || hit.v !== undefined) this.stateful?.push(m.seq, hit);
        if (hit.v !== undefined) this.silencesRecorded = Math.max(this.silencesRecorded, ...hit.v.map((c) => c.rev));
        else if (hit.r === undefined && (hit.s < 0 || hit.s > this.floor)) {
          this.pending.push({ hitSeq: m.seq, s: hit.s, hit });
          for (const [s, at] of readSteps(hit.p ?? [])) if (s > this.floor) this.pending.push({ hitSeq: m.seq, s, at });
        }
      }
      this.unfetched = batch.pending;
      // Not "the fetch came back empty": on a starved process that only says the fetch's timer ran first.
      const drained = batch.drained;
      if (drained) this.caughtUp = true;
      const results = this.applyUpTo(drained ? floor : this.floor);
      const routing = this.deps.stateful;
      if (routing === undefined || this.stateful === undefined) {
        if (results.length > 0) this.lastOseq = await this.deps.deliver(results.map((r) => r.line));
      } else {
        if (results.length > 0) await routing.publish(resultHits(results, routing.selectors(), this.deps.partitions, this.deps.partition));
        if (this.floor !== this.floorWritten) {
          await routing.writeFloor(this.floor);
          this.floorWritten = this.floor;
        }
        const emitted = drained ? this.stateful.applyUpTo(Math.min(floor, correlated)) : [];
        if (emitted.length > 0) this.lastOseq = await this.deps.deliver(emitted);
      }
      this.out = { floor: this.stateful?.appliedFloor ?? this.floor, oseq: this.lastOseq };
      // Not once the lease stopped counting: the next owner may be reading the snapshot (a read the write would hold up).
      if (!this.stopped && this.deps.leased() && ctx.clock.now() - this.lastSnapshotAt >= this.deps.snapshotIntervalMs && this.resumeSeq > this.snapshotSeq && this.deps.delivered(this.lastOseq)) await this.snapshot();
    }
  }

  /**
   * Records the silence changes this partition has not seen in its own hits, at its alert pipeline's
   * floor: they apply after every result of input up to it, here and in any replay. The id drops a
   * second record of the same changes (a new owner's, within the duplicate window).
   */
  private async recordSilences(): Promise<void> {
    if (this.stateful === undefined || this.deps.stateful === undefined) return;
    const changes = this.deps.stateful.silences.changesAfter(this.silencesRecorded);
    if (changes.length === 0) return;
    const last = (changes[changes.length - 1] as { rev: number }).rev;
    const body: HitBody = { s: this.stateful.appliedFloor, m: [], e: {}, t: this.deps.ctx.clock.now(), v: changes };
    await this.deps.stateful.record({ partition: this.deps.partition, id: `v${last}-${this.deps.partition}`, body: JSON.stringify(body) });
    this.silencesRecorded = last;
  }

  /** Hit sequence a next owner reads on from: before the oldest hit still waiting. */
  private get resumeSeq(): number {
    let min = Math.min(this.seq, this.stateful?.resumeSeq ?? Infinity);
    for (const p of this.pending) if (p.hitSeq - 1 < min) min = p.hitSeq - 1;
    return min;
  }

  /** Applies the waiting hits of input sequence ≤ `floor` in input order (hits without one at once). */
  private applyUpTo(floor: number): SequencedResult[] {
    const out: SequencedResult[] = [];
    if (floor > this.floor) this.floor = floor;
    // Input order; a batch's tick after the hits of its last line.
    const ready = this.pending.filter((p) => p.s <= this.floor).sort((a, b) => a.s - b.s || rank(a) - rank(b));
    if (ready.length === 0) return out;
    this.pending = this.pending.filter((p) => p.s > this.floor);
    for (const p of ready) {
      if (p.hit === undefined) this.runtime.advanceTo(p.at);
      else this.apply(p.hitSeq, p.hit, out);
    }
    return out;
  }

  /** One hit, or a tick at the same event-time steps as a single node. */
  private apply(hitSeq: number, hit: HitBody, out: SequencedResult[]): void {
    if (hit.k !== undefined) {
      // Stage 1's batch reached this time, whichever partitions its hits went to.
      this.runtime.advanceTo(hit.k);
      if (hit.k - this.tickedAt >= TICK_EVERY_MS) {
        this.tickedAt = hit.k;
        this.runtime.tick(hit.k);
      }
      return;
    }
    let n = 0;
    if (hit.w !== undefined) this.runtime.advanceTo(hit.w);
    for (const result of this.runtime.onEvent(hit.m, hit.e, hit.t)) {
      const result_id = hit.s >= 0 ? resultIdForHit(this.deps.partition, hit.s, n++) : resultIdForHit(this.deps.partition, hitSeq, n++, 'hit');
      out.push({ s: hit.s, t: hit.t, line: { result_id, head: result, text: JSON.stringify({ result_id, ...result }) } });
    }
  }

  private async snapshot(): Promise<void> {
    const seq = this.resumeSeq;
    const snap: PartitionSnapshot = { v: SNAPSHOT_VERSION, seq, floor: this.floor, tickedAt: this.tickedAt, tm: this.runtime.streamTime, groups: encode(this.runtime.snapshot()), ...(this.stateful !== undefined ? { st: this.stateful.snapshot() } : {}) };
    try {
      await this.deps.bus.saveSnapshot(this.deps.partition, new TextEncoder().encode(JSON.stringify(snap)));
      this.snapshotSeq = seq;
      this.lastSnapshotAt = this.deps.ctx.clock.now();
    } catch (error) {
      this.log.warn({ err: error }, 'partition snapshot failed; the next owner replays from the previous one');
    }
  }
}
