import type { Counter } from 'prom-client';
import type { CorrelationRuntime } from '../actors/correlation/index.js';
import type { RuleSet } from '../sigma/rule-set.js';
import type { CommitResult, CrashHook, JournalDraft, OutboxDraft, StateStore } from '../state/index.js';
import { resultIdForInput } from '../state/index.js';
import { CORRELATION_TICK_KIND } from './correlation-state.js';
import type { Decoder } from './decode-stage.js';
import { evaluateEvent } from './event-results.js';
import type { SigmaResult } from './event-results.js';
import type { InputUnit } from './input-queue.js';
import type { LogsourceOf } from './logsource-of.js';
import type { StageContext } from './stage-context.js';

/** The rules in force; swapped as a whole by a reload, between batches. */
export interface ActiveRules {
  readonly ruleSet: RuleSet;
  readonly runtime: CorrelationRuntime;
}

/** Journal records produced outside `evaluate` (the runtime's `record` hook, ticks, `$definitions`). */
export interface JournalBuffer {
  /** Batch time stamped on records the hook adds. */
  at: number;
  readonly drafts: JournalDraft[];
  /** Event time of the last journaled tick. */
  tickedAt: number;
}

/**
 * Event-time distance between correlation ticks. Ticks run inside a batch, at the newest event
 * time that batch journaled, so replay and a re-sent input reproduce them exactly (a wall-clock
 * timer would make eviction depend on when batches happened to run).
 */
export const TICK_EVERY_MS = 1_000;

/** A committed result as sinks and the tail see it. */
export type ResultLine = { readonly result_id: string } & SigmaResult;

/** A committed result with its NDJSON text, serialised once for the outbox, every sink and the tail. */
export interface CommittedResult {
  readonly line: ResultLine;
  readonly text: string;
}

export interface BatchProcessorDeps {
  readonly store: StateStore;
  readonly decoder: Decoder;
  readonly rules: () => ActiveRules;
  readonly journal: JournalBuffer;
  /** `input.source` of the commits (`http`, `stdin`). */
  readonly source: string;
  readonly includeEvent: boolean;
  /** `--logsource-routing`: the event's logsource for the engine's router. */
  readonly logsourceOf?: LogsourceOf;
  readonly crash: CrashHook;
  /** Resolves when every blocking sink has room (back-pressure from the sinks). */
  readonly sinkRoom: () => Promise<void>;
  /**
   * Called after each commit with the batch's results and the outbox sequence of the first (sinks
   * take the texts without reading them back, tail sessions fan out).
   */
  readonly committed: (results: readonly CommittedResult[], firstOseq: number) => void;
}

const LEVEL_UNKNOWN = 'unknown';

/** What a handed-over batch needs once its commit lands. */
interface CommittingBatch {
  readonly units: readonly InputUnit[];
  readonly answers: readonly { accepted: number; parseErrors: number }[];
  readonly lines: readonly CommittedResult[];
  readonly events: number;
  readonly line: number;
  readonly elapsed: number;
  readonly dequeuedAt: number;
  readonly active: ActiveRules;
}

/**
 * One batch: decode, evaluate (detections, then correlations whose `record` hook journals the group
 * events), give each result its deterministic id, and commit journal + outbox (+ idempotency
 * answer) in ONE transaction. Units are settled only after the commit, so `accepted` is durable.
 */
export class BatchProcessor {
  private readonly byRule = new Map<string, Counter.Internal>();
  private readonly byCorrelation = new Map<string, Counter.Internal>();
  /** Committed totals for `/api/v1/status` (the metric handles only read asynchronously). */
  readonly totals = { events: 0, detections: 0, correlations: 0 };
  /** Options of events without a routing context, allocated once. */
  private readonly plain: { readonly includeEvent: boolean };
  /** Engine routing counters already reported, per engine (a reload brings a fresh engine). */
  private readonly reported = new WeakMap<object, { pruned: number; without: number }>();

  constructor(
    private readonly ctx: StageContext,
    private readonly deps: BatchProcessorDeps,
  ) {
    this.plain = { includeEvent: deps.includeEvent };
  }

  async process(units: readonly InputUnit[], dequeuedAt: number): Promise<void> {
    await (await this.handOver(units, dequeuedAt)).committed;
  }

  /**
   * Evaluates the batch and hands its commit to the store; resolves once handed over, with
   * `committed` settling after the commit and its aftermath (settling units, metrics, the tail). The
   * store sequences commits in call order, so the next batch may be evaluated while this one is written.
   */
  async handOver(units: readonly InputUnit[], dequeuedAt: number): Promise<{ readonly committed: Promise<void> }> {
    const { deps } = this;
    await deps.sinkRoom();
    // From here to commitBatch nothing awaits: ordinals and journal order belong to this batch.
    const active = deps.rules();
    const now = this.ctx.clock.now();
    deps.journal.at = now;
    const started = performance.now();
    const ordinal0 = deps.store.nextInputOrdinal;
    const outbox: OutboxDraft[] = [];
    const lines: CommittedResult[] = [];
    const answers: { accepted: number; parseErrors: number }[] = [];
    let line = 0;
    let events = 0;
    for (const unit of units) {
      let parseErrors = unit.oversized;
      deps.decoder.rejected(unit.oversized);
      for (const text of unit.lines) {
        const ordinal = ordinal0 + line++;
        const event = deps.decoder.decode(text);
        if (event === undefined) {
          parseErrors++;
          continue;
        }
        events++;
        const context = deps.logsourceOf?.(event);
        const out = evaluateEvent(active.ruleSet, active.runtime, event, now, context === undefined ? this.plain : { includeEvent: deps.includeEvent, context });
        for (let i = 0; i < out.results.length; i++) {
          const result = out.results[i] as SigmaResult;
          const withId = { result_id: resultIdForInput(ordinal, i), ...result } as ResultLine;
          // The outbox keeps the line's text: packing a string is far cheaper than packing the object.
          const text = JSON.stringify(withId);
          lines.push({ line: withId, text });
          outbox.push({ result_id: withId.result_id, payload: text });
          this.countResult(result);
        }
      }
      answers.push({ accepted: unit.lines.length, parseErrors });
    }
    const elapsed = (performance.now() - started) / 1000;
    const keyed = units.length === 1 ? units[0]?.idempotencyKey : undefined;
    const answer = answers[0];
    this.tick(active.runtime);
    const records = deps.journal.drafts.splice(0);
    deps.crash('after-eval');
    const commit = deps.store.commitBatch({
        records,
        outbox,
        input: { count: line, source: deps.source },
        ...(keyed !== undefined && answer !== undefined
          ? { idempotency: { key: keyed, answer: { accepted: answer.accepted, parse_errors: answer.parseErrors }, at: now } }
          : {}),
    });
    return { committed: this.afterCommit(commit, { units, answers, lines, events, line, elapsed, dequeuedAt, active }) };
  }

  private async afterCommit(commit: Promise<CommitResult>, batch: CommittingBatch): Promise<void> {
    const { deps, ctx } = this;
    const m = ctx.metrics;
    const { units, answers, lines, events, line, elapsed, dequeuedAt, active } = batch;
    let firstOseq: number;
    try {
      firstOseq = (await commit).firstOseq;
    } catch (error) {
      const failure = error instanceof Error ? error : new Error(String(error));
      for (const u of units) u.settle?.({ ok: false, error: failure });
      throw failure;
    }
    m.svc_events_processed_total.inc(events);
    this.totals.events += events;
    for (const { line: r } of lines) {
      if ('correlation_type' in r) this.totals.correlations++;
      else this.totals.detections++;
    }
    m.svc_batch_size.observe(line);
    if (events > 0) {
      const perEvent = elapsed / events;
      for (let i = 0; i < events; i++) m.svc_event_processing_seconds.observe(perEvent);
    }
    m.svc_correlation_state_entries.set(active.runtime.stateEntries);
    this.reportRouting(active);
    units.forEach((u, i) => {
      const a = answers[i];
      if (a !== undefined) u.settle?.({ ok: true, accepted: a.accepted, parseErrors: a.parseErrors });
    });
    deps.committed(lines, firstOseq);
    m.svc_pipeline_latency_seconds.observe((ctx.clock.now() - dequeuedAt) / 1000);
  }

  /** `svc_rules_pruned_by_logsource_total` / `svc_events_without_logsource_total` from the engine's stats. */
  private reportRouting(active: ActiveRules): void {
    const stats = active.ruleSet.engine.stats;
    const seen = this.reported.get(stats) ?? { pruned: 0, without: 0 };
    const m = this.ctx.metrics;
    if (stats.rulesPrunedByLogsource > seen.pruned) m.svc_rules_pruned_by_logsource_total.inc(stats.rulesPrunedByLogsource - seen.pruned);
    if (stats.eventsWithoutLogsource > seen.without) m.svc_events_without_logsource_total.inc(stats.eventsWithoutLogsource - seen.without);
    this.reported.set(stats, { pruned: stats.rulesPrunedByLogsource, without: stats.eventsWithoutLogsource });
  }

  /** Journals what is buffered (ticks, `$definitions`) without input. */
  async commitJournal(): Promise<void> {
    const records = this.deps.journal.drafts.splice(0);
    if (records.length === 0) return;
    await this.deps.store.commitBatch({ records });
  }

  /** Advance every group to the newest hit time of this batch when it moved a tick further. */
  private tick(runtime: CorrelationRuntime): void {
    const journal = this.deps.journal;
    let frontier = -1;
    for (const d of journal.drafts) {
      const e = d.event as { kind?: unknown; at?: unknown };
      if (e.kind === 'hit' && typeof e.at === 'number' && e.at > frontier) frontier = e.at;
    }
    if (frontier < 0 || frontier - journal.tickedAt < TICK_EVERY_MS) return;
    journal.tickedAt = frontier;
    journal.drafts.push({ at: journal.at, kind: CORRELATION_TICK_KIND, key: '', event: { now: frontier } });
    runtime.tick(frontier);
  }

  private countResult(result: SigmaResult): void {
    const m = this.ctx.metrics;
    const level = result.level ?? LEVEL_UNKNOWN;
    if (!('correlation_type' in result)) {
      m.svc_detection_matches_total.inc();
      const key = `${result.rule_title}\u0000${level}`;
      let c = this.byRule.get(key);
      if (c === undefined) {
        c = m.svc_detection_matches_by_rule_total.labels({ rule_title: result.rule_title, level });
        this.byRule.set(key, c);
      }
      c.inc();
      return;
    }
    m.svc_correlation_matches_total.inc();
    const key = `${result.rule_title}\u0000${level}\u0000${result.correlation_type}`;
    let c = this.byCorrelation.get(key);
    if (c === undefined) {
      c = m.svc_correlation_matches_by_rule_total.labels({ rule_title: result.rule_title, level, correlation_type: result.correlation_type });
      this.byCorrelation.set(key, c);
    }
    c.inc();
  }
}
