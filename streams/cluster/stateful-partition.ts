// The alert pipeline and the risk layer of one partition in cluster mode (issue 21): the same stages
// (and pure reducers) as a single node's, fed the partition's results in input order. Results wait
// until every result of their input sequence can have reached the partition: detection results are
// published by stage 1 before the input is acknowledged, correlation results by their group's owner
// before it moves its floor, so the owner applies up to the lower of the two floors. Time is the
// stage-1 clock of the input's batch, and ticks are stage 1's per-batch ticks, so a new owner replaying
// the hits after a snapshot reaches the same state and re-emits the same ids.
import type { AlertResult, AlertStatePiece, RiskEntityView, RiskStatePiece } from '../../actors/index.js';
import type { AlertPipelineFile, MetricHandles, RiskFile } from '../../protocol/index.js';
import { AlertStage, metricsObserver } from '../alert-stage.js';
import type { CommittedResult, JournalBuffer } from '../batch-processor.js';
import { unixSeconds } from '../journaled-stage.js';
import { RiskStage, riskMetricsObserver } from '../risk-stage.js';
import type { SilenceChange } from './cluster-silences.js';
import type { HitBody } from './hit-router.js';

/** The alert pipeline and risk files the partitions run (the node's, reloaded with it). */
export interface StatefulFiles {
  readonly alert: AlertPipelineFile | undefined;
  readonly risk: RiskFile | undefined;
}

/** The stateful part of a partition snapshot. */
export interface StatefulSnapshot {
  /** Every result and tick of input sequence ≤ floor is applied. */
  readonly floor: number;
  readonly alert: readonly AlertStatePiece[];
  readonly risk: readonly RiskStatePiece[];
  /** Silence bucket revision of the newest change applied (absent in snapshots made before cluster silences). */
  readonly sr?: number;
}

/** Where a hit goes among those of its input sequence: results, then the batch's tick, then silence changes. */
const rank = (h: HitBody): number => (h.v !== undefined ? 2 : h.k !== undefined ? 1 : 0);

/** Order of a partition's waiting results: input order; detections, then correlation results by origin partition; the batch's tick, then silence changes last. */
function order(a: HitBody, b: HitBody): number {
  return a.s - b.s || rank(a) - rank(b) || (a.o ?? -1) - (b.o ?? -1);
}

export class StatefulPartition {
  /** The stages journal into it; the partition's durability is its snapshot and the hit stream, so records are dropped. */
  private readonly journal: JournalBuffer = { at: 0, drafts: [], tickedAt: -1 };
  private readonly risk: RiskStage;
  private readonly alert: AlertStage;
  private pending: { readonly hitSeq: number; readonly hit: HitBody }[] = [];
  private floor = 0;
  private appliedRev = 0;

  constructor(files: StatefulFiles, metrics: MetricHandles) {
    // Counters only: the gauges belong to the node's own stages.
    this.risk = new RiskStage(this.journal, riskMetricsObserver(metrics));
    this.alert = new AlertStage(this.journal, metricsObserver(metrics));
    this.load(files);
  }

  /** Puts the files in force (at start, after a restore, and at a reload); throws AlertConfigError. */
  load(files: StatefulFiles): void {
    this.risk.load(files.risk);
    this.alert.load(files.alert);
    this.journal.drafts.length = 0;
  }

  /**
   * A fetched result hit, tick or silence change; one at or below the floor was applied before the
   * snapshot (a silence change at the floor may not have been: changes apply once, by revision).
   */
  push(hitSeq: number, hit: HitBody): void {
    if (hit.s < 0 || hit.s > this.floor || (hit.v !== undefined && hit.s === this.floor)) this.pending.push({ hitSeq, hit });
  }

  /** Every result and tick of input sequence ≤ it is applied: where a silence change recorded now applies. */
  get appliedFloor(): number {
    return this.floor;
  }

  /** Silence bucket revision of the newest change applied. */
  get silenceRev(): number {
    return this.appliedRev;
  }

  /** Hit sequences of the hits waiting for a floor. */
  waiting(): number[] {
    return this.pending.map((p) => p.hitSeq);
  }

  /** Hit sequence before the oldest waiting hit (Infinity: none waits). */
  get resumeSeq(): number {
    let min = Infinity;
    for (const p of this.pending) if (p.hitSeq - 1 < min) min = p.hitSeq - 1;
    return min;
  }

  /** Applies the waiting results and ticks of input sequence ≤ `floor`, in order; what they emit. */
  applyUpTo(floor: number): CommittedResult[] {
    const out: CommittedResult[] = [];
    if (floor > this.floor) this.floor = floor;
    const ready = this.pending.filter((p) => p.hit.s <= this.floor).map((p) => p.hit).sort(order);
    if (ready.length === 0) return out;
    this.pending = this.pending.filter((p) => p.hit.s > this.floor);
    for (const hit of ready) {
      this.journal.at = hit.t;
      if (hit.k !== undefined) {
        const now = unixSeconds(hit.t);
        this.risk.tick(now);
        out.push(...this.alert.tick(now));
      } else if (hit.v !== undefined) {
        this.applySilences(hit.v);
      } else if (hit.r !== undefined) {
        const lines = hit.r.map((r): CommittedResult => ({ result_id: r.i, head: r.h, text: r.x }));
        out.push(...this.alert.apply(this.risk.apply(lines)));
      }
    }
    this.journal.drafts.length = 0;
    return out;
  }

  /** Changes of the silence bucket, each once: an API silence put in force (one of its id replaced) or every silence of a deleted id removed. */
  private applySilences(changes: readonly SilenceChange[]): void {
    for (const c of changes) {
      if (c.rev <= this.appliedRev) continue;
      this.appliedRev = c.rev;
      const store = this.alert.pipeline.silences;
      if (c.silence === undefined) store.remove(c.id);
      else store.restoreApi([...store.apiSilences().filter((s) => s.id !== c.id), c.silence]);
    }
  }

  snapshot(): StatefulSnapshot {
    return { floor: this.floor, alert: [...this.alert.pipeline.pieces()], risk: [...this.risk.layer.pieces()], sr: this.appliedRev };
  }

  restore(snap: StatefulSnapshot, files: StatefulFiles): void {
    this.floor = snap.floor;
    this.appliedRev = snap.sr ?? 0;
    this.alert.pipeline.restore(snap.alert);
    this.risk.layer.restore(snap.risk);
    this.load(files);
  }

  incidents(): AlertResult[] {
    return this.alert.pipeline.incidentSnapshots();
  }

  riskEntities(nowMs: number): RiskEntityView[] {
    return this.risk.layer.entities(unixSeconds(nowMs));
  }
}
