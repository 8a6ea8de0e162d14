import { CorrelationRuntime, partitionOf, stateKeyOf } from '../../actors/index.js';
import type { AlertResult, CorrelationRuntimeOptions, StateKeySelectors } from '../../actors/index.js';
import { createFieldReader, DEFAULT_TIMESTAMP_FIELDS, extractEventTime } from '../../sigma/index.js';
import type { CompiledCorrelation, GroupId } from '../../sigma/index.js';
import type { CommittedResult } from '../batch-processor.js';
import type { CorrelationInput, ResultHead } from '../detect/detect-batch.js';
import type { Hit } from './cluster-bus.js';
import type { SilenceChange } from './cluster-silences.js';

/** A result on its way to the owner of its alert-pipeline and risk state: id, head and text. */
export interface RoutedResult {
  readonly i: string;
  readonly h: ResultHead;
  readonly x: string;
}

/** A hit's body: the input stream sequence (-1: none), the matched rules, the event, and the stage-1 clock (the timestamp fallback). */
export interface HitBody {
  readonly s: number;
  /**
   * A tick instead of a hit: the event time the batch ending at input sequence `s` reached. Every
   * partition gets it, so partitions expire groups at the same points of the input as a single node.
   */
  readonly k?: number;
  readonly m: CorrelationInput['matched'];
  readonly e: CorrelationInput['event'];
  readonly t: number;
  /**
   * A tick's stream-time steps: the batch's correlated events in input order, kept where one is newer
   * than every one before it, as deltas `[seq, time, Δseq, Δtime, …]`. An owner moves its stream time at
   * each step's input sequence, so every hit is late (or not) by the newest event before it across all
   * partitions, as on a single node, however the shared consumer spread the input over the nodes.
   */
  readonly p?: readonly number[];
  /** Hits of builds before `p`: the stage-1 node's stream time when ahead of the event's own. */
  readonly w?: number;
  /**
   * Results for the partition's alert pipeline and risk layer instead of a correlation hit: detection
   * results of input `s` from stage 1, or (`o` set) the correlation results partition `o`'s owner made of it.
   */
  readonly r?: readonly RoutedResult[];
  readonly o?: number;
  /**
   * API silence changes the partition's owner recorded in its own hits instead: they apply after every
   * result and tick of input `s` (its alert pipeline's floor when recorded), before those of later input.
   */
  readonly v?: readonly SilenceChange[];
}

/** A result with the input sequence it came from and the stage-1 clock of that input's batch. */
export interface SequencedResult {
  readonly s: number;
  readonly t: number;
  readonly line: CommittedResult;
}

/** The partition holding a result's alert-pipeline and risk state. */
function statePartition(selectors: StateKeySelectors, text: string, partitions: number): number {
  return partitionOf('', stateKeyOf(selectors, JSON.parse(text) as AlertResult), partitions);
}

/**
 * Results as hits to the partitions of their state keys: one hit per input sequence and partition,
 * results in their order, its id `<seq>-<partition>-r` (stage 1) or `-c<origin>` (forwarded by the
 * owner of partition `origin`), so a re-publish after a retry or a takeover is dropped as a duplicate.
 */
export function resultHits(results: readonly SequencedResult[], selectors: StateKeySelectors, partitions: number, origin?: number): Hit[] {
  const hits: Hit[] = [];
  for (let i = 0; i < results.length; ) {
    const { s, t } = results[i] as SequencedResult;
    const byPartition = new Map<number, RoutedResult[]>();
    for (; i < results.length && (results[i] as SequencedResult).s === s; i++) {
      const { line } = results[i] as SequencedResult;
      const q = statePartition(selectors, line.text, partitions);
      let list = byPartition.get(q);
      if (list === undefined) byPartition.set(q, (list = []));
      list.push({ i: line.result_id, h: line.head, x: line.text });
    }
    for (const [partition, r] of byPartition) {
      const body = JSON.stringify({ s, m: [], e: {}, t, r, ...(origin !== undefined ? { o: origin } : {}) } satisfies HitBody);
      hits.push({ partition, id: s >= 0 ? `${s}-${partition}-${origin === undefined ? 'r' : `c${origin}`}` : undefined, body });
    }
  }
  return hits;
}

/** The name a correlation's groups are partitioned under (the same on every node). */
function correlationKey(def: CompiledCorrelation): string {
  return def.rule.id ?? def.rule.name ?? def.rule.title;
}

/** The partition of a correlation group, as stage 1 routes its hits and its owner keeps it. */
export function groupPartition(def: CompiledCorrelation, id: GroupId, partitions: number): number {
  return partitionOf(correlationKey(def), id === null ? '' : id, partitions);
}

/**
 * The batch's stream-time steps (`HitBody.p`): in input order, each event newer than every one before
 * it, as deltas from the step before.
 */
export function streamSteps(routed: readonly { readonly seq: number; readonly at: number }[]): number[] {
  const order = [...routed].sort((a, b) => a.seq - b.seq);
  const steps: number[] = [];
  let seq = 0;
  let newest = 0;
  for (const r of order) {
    if (steps.length > 0 && r.at <= newest) continue;
    steps.push(r.seq - seq, r.at - newest);
    seq = r.seq;
    newest = r.at;
  }
  return steps;
}

/** `streamSteps` read back: `[seq, time]` pairs. */
export function readSteps(p: readonly number[]): [number, number][] {
  const out: [number, number][] = [];
  let seq = 0;
  let at = 0;
  for (let i = 0; i + 1 < p.length; i += 2) {
    seq += p[i] as number;
    at += p[i + 1] as number;
    out.push([seq, at]);
  }
  return out;
}

/**
 * Stage 1 of cluster mode: which partitions an event's correlation hits belong to. A correlation
 * runtime over the rules in force works it out (same group keys, timestamps and fallback as the
 * owners) with an ownership filter that notes each group's partition and keeps nothing.
 */
export class HitRouter {
  private runtime: CorrelationRuntime | undefined;
  private defs: readonly CompiledCorrelation[] | undefined;
  private readonly touched = new Set<number>();
  private readonly read = createFieldReader();

  /**
   * @param everyBatch Every batch ticks every partition (with stage 1's clock, -1 as event time when it
   *   reached none): the partitions' alert pipeline and risk layer time out on those ticks.
   */
  constructor(
    private readonly partitions: number,
    private readonly options: (defs: readonly CompiledCorrelation[]) => CorrelationRuntimeOptions,
    private readonly everyBatch: () => boolean,
  ) {}

  /** One hit per (line, partition): its id is the line's stream sequence and the partition. */
  route(defs: readonly CompiledCorrelation[], correlate: readonly CorrelationInput[], sequences: readonly number[], now: number): Hit[] {
    const runtime = this.runtimeFor(defs);
    const hits: Hit[] = [];
    const options = this.options(defs);
    const routed: { readonly seq: number; readonly at: number }[] = [];
    let frontier = -1;
    let last = -1;
    for (const c of correlate) {
      this.touched.clear();
      runtime.onEvent(c.matched, c.event, now);
      if (this.touched.size === 0) continue;
      const seq = sequences[c.line] ?? -1;
      const at = extractEventTime(c.event, options.timestampFields ?? DEFAULT_TIMESTAMP_FIELDS, options.readField ?? this.read) ?? (options.timestampFallback === 'skip' ? -1 : Math.floor(now));
      if (at > frontier) frontier = at;
      if (seq > last) last = seq;
      if (seq >= 0 && at >= 0) routed.push({ seq, at });
      const body = JSON.stringify({ s: seq, m: c.matched, e: c.event, t: now } satisfies HitBody);
      for (const partition of [...this.touched].sort((a, b) => a - b)) hits.push({ partition, id: seq >= 0 ? `${seq}-${partition}` : undefined, body });
    }
    if (this.everyBatch()) for (const seq of sequences) if (seq > last) last = seq;
    if ((frontier >= 0 || this.everyBatch()) && last >= 0) {
      const body = JSON.stringify({ s: last, k: frontier, m: [], e: {}, t: now, ...(routed.length > 0 ? { p: streamSteps(routed) } : {}) } satisfies HitBody);
      for (let partition = 0; partition < this.partitions; partition++) hits.push({ partition, id: `${last}-${partition}-t`, body });
    }
    return hits;
  }

  private runtimeFor(defs: readonly CompiledCorrelation[]): CorrelationRuntime {
    if (this.runtime === undefined || this.defs !== defs) {
      this.defs = defs;
      this.runtime = new CorrelationRuntime(defs, {
        ...this.options(defs),
        owns: (def, id) => {
          this.touched.add(groupPartition(def, id, this.partitions));
          return false;
        },
      });
    }
    return this.runtime;
  }
}
