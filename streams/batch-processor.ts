import type { Counter } from 'prom-client';
import type { CorrelationRuntime } from '../actors/index.js';
import { joinLines, lineText } from '../protocol/index.js';
import type { UnitLines } from '../protocol/index.js';
import type { CompiledRule } from '../sigma/index.js';
import type { RuleSet } from '../sigma/index.js';
import type { CommitResult, CrashHook, JournalDraft, OutboxDraft, StateStore } from '../state/index.js';
import { resultIdForInput, resultIdForStream, Utf8Lines } from '../state/index.js';
import { CORRELATION_TICK_KIND } from './correlation-state.js';
import type { Decoder } from './decode-stage.js';
import type { CorrelationInput, DetectedBatch, ResultHead } from './detect/detect-batch.js';
import type { Detector } from './detect/detector.js';
import type { SigmaResult } from './event-results.js';
import type { InputUnit } from './input-queue.js';
import type { ResultValue } from './result-value.js';
import type { StageContext } from './stage-context.js';
import type { ObservedBatch } from './observe/index.js';

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

/** A committed result: its NDJSON text, serialised once for the outbox, every sink and the tail. */
export interface CommittedResult {
  readonly result_id: string;
  /** What metrics and tail filters read, without parsing the text. */
  readonly head: ResultHead;
  readonly text: string;
  /** Made by the risk layer (a risk event or incident): later stages pass it on untouched (§6). */
  readonly bypass?: true;
  /**
   * The text parsed, once a stage needed it (`resultValue`): the stages of a batch share it instead of
   * each parsing the text again. A stage that changes a result makes a new line whose value matches
   * its new text; sinks and the tail read only `text`.
   */
  value?: ResultValue;
}

export interface BatchProcessorDeps {
  readonly store: StateStore;
  /** Parse errors are reported here, in input order. */
  readonly decoder: Decoder;
  /** The detection stage (inline or worker threads), under the same rules as `rules()`. */
  readonly detector: Detector;
  readonly rules: () => ActiveRules;
  readonly journal: JournalBuffer;
  /** `input.source` of the commits (`http`, `stdin`). */
  readonly source: string;
  readonly crash: CrashHook;
  /** Resolves when every blocking sink has room (back-pressure from the sinks). */
  readonly sinkRoom: () => Promise<void>;
  /**
   * Called after each commit with the batch's results and the outbox sequence of the first (sinks
   * take the texts, and `encoded`, their UTF-8 bytes, without reading them back; tail sessions fan out).
   */
  readonly committed: (results: readonly CommittedResult[], firstOseq: number, encoded: Utf8Lines) => void;
  /**
   * Sees each batch's input lines once detection is done (the event tap) while `active`; must not wait.
   * Lines kept as bytes are passed as they are (the tap makes a string of a line only to send it).
   */
  readonly observe?: { readonly active: boolean; publish(lines: UnitLines): void };
  /** Takes each batch's observations for the field and schema observers (when detection made them); must not wait. */
  readonly observed?: (batch: ObservedBatch) => void;
  /** The alert pipeline stage (§6: after correlation, before the tail and the outbox); it journals into `journal`. */
  readonly alerts?: { apply(lines: readonly CommittedResult[]): readonly CommittedResult[] };
  /**
   * The enrichment stage (§6: before risk). It may wait (http, command enrichers): nothing else
   * touches the journal or the store meanwhile, since exclusive work and the next batch wait for this
   * hand-over.
   */
  readonly enrich?: { apply(lines: readonly CommittedResult[]): readonly CommittedResult[] | Promise<readonly CommittedResult[]> };
  /** The risk layer stage (§6: before the alert pipeline); it journals into `journal`. */
  readonly risk?: { apply(lines: readonly CommittedResult[]): readonly CommittedResult[] };
  /**
   * Cluster mode (issue 21): correlations run on the partition owners, not here. Publishes the
   * batch's correlation inputs as hits (with each line's stream sequence, -1 when it has none) and
   * resolves once the hit stream has them, before the batch commits and its input is acknowledged.
   */
  readonly hits?: (correlate: readonly CorrelationInput[], sequences: readonly number[]) => Promise<void>;
  /**
   * Cluster mode with an alert pipeline or risk layer: instead of `risk` and `alerts`, publishes the
   * batch's results (at batch time `now`) to the partitions that hold their state, whose owners run
   * those stages and emit them; resolves with the results this node emits itself.
   */
  readonly stateful?: (lines: readonly CommittedResult[], now: number) => Promise<readonly CommittedResult[]>;
}

/** A batch taken off the queue whose detection is under way. */
export interface EvaluatingBatch {
  readonly units: readonly InputUnit[];
  /** The units' lines, in order. */
  readonly lines: UnitLines;
  readonly detected: Promise<DetectedBatch>;
  readonly dequeuedAt: number;
}

const LEVEL_UNKNOWN = 'unknown';

/** What a handed-over batch needs once its commit lands. */
interface CommittingBatch {
  readonly units: readonly InputUnit[];
  readonly answers: readonly { accepted: number; parseErrors: number }[];
  readonly lines: readonly CommittedResult[];
  /** `lines` past the alert pipeline. */
  readonly delivered: readonly CommittedResult[];
  /** The texts of `delivered`, encoded once for the outbox and the sinks. */
  readonly encoded: Utf8Lines;
  readonly events: number;
  readonly line: number;
  readonly elapsed: number;
  readonly dequeuedAt: number;
  readonly active: ActiveRules;
}

/**
 * A committed detection whose text is `{"result_id":"…",` + its text from detection past the `{` (the same
 * bytes as stringifying it with the id first). Its bytes go to the outbox and the line sinks as detection
 * encoded them; the text is decoded only when something reads it (a stage, the tail, a formatting sink).
 */
class DetectionLine implements CommittedResult, OutboxDraft {
  value?: ResultValue;
  private decoded: string | undefined;

  constructor(
    readonly result_id: string,
    readonly head: ResultHead,
    private readonly bodies: Utf8Lines,
    private readonly body: number,
  ) {}

  get text(): string {
    return (this.decoded ??= `{"result_id":${JSON.stringify(this.result_id)},${this.bodies.text(this.body).slice(1)}`);
  }

  get payload(): string {
    return this.text;
  }
}

/** Each line's stream sequence, -1 for lines of units without (cluster mode). */
function lineSequences(units: readonly InputUnit[]): number[] {
  const out: number[] = [];
  for (const u of units) {
    if (u.sequences !== undefined) out.push(...u.sequences);
    else for (let i = 0; i < u.lines.length; i++) out.push(-1);
  }
  return out;
}

/** A line's result id: from its stream sequence when it has one (cluster mode), else from its input ordinal. */
function resultIdFor(seq: number, ordinal: number, index: number): string {
  return seq >= 0 ? resultIdForStream(seq, index) : resultIdForInput(ordinal, index);
}

/**
 * One batch: detection (decode, evaluate, detection results; possibly on a worker thread), then in
 * input order correlations (whose `record` hook journals the group events), each result's
 * deterministic id, and the commit of journal + outbox (+ idempotency answer) in ONE transaction.
 * Units are settled only after the commit, so `accepted` is durable.
 */
export class BatchProcessor {
  /** Per detection rule: its result head and its `svc_detection_matches_by_rule_total` child. */
  private readonly heads = new WeakMap<CompiledRule, ResultHead>();
  private readonly byRule = new WeakMap<ResultHead, Counter.Internal>();
  private readonly byCorrelation = new Map<string, Counter.Internal>();
  /** Committed totals for `/api/v1/status` (the metric handles only read asynchronously). */
  readonly totals = { events: 0, detections: 0, correlations: 0 };

  constructor(
    private readonly ctx: StageContext,
    private readonly deps: BatchProcessorDeps,
  ) {}

  /** Batches the detection stage evaluates at once. */
  get parallelism(): number {
    return this.deps.detector.parallelism;
  }

  async process(units: readonly InputUnit[], dequeuedAt: number): Promise<void> {
    await (await this.handOver(this.evaluate(units, dequeuedAt))).committed;
  }

  /** Start detecting a batch; its results are applied by `handOver`, batches in the order taken. */
  evaluate(units: readonly InputUnit[], dequeuedAt: number): EvaluatingBatch {
    const lines = joinLines(units.map((u) => u.lines));
    return { units, lines, detected: this.deps.detector.detect(lines, this.ctx.clock.now()), dequeuedAt };
  }

  /**
   * Applies a detected batch and hands its commit to the store; resolves once handed over, with
   * `committed` settling after the commit and its aftermath (settling units, metrics, the tail). The
   * store sequences commits in call order, so the next batch may be applied while this one is written.
   */
  async handOver(batch: EvaluatingBatch): Promise<{ readonly committed: Promise<void> }> {
    const { deps } = this;
    const { units, lines: texts, dequeuedAt } = batch;
    let detected: DetectedBatch;
    try {
      await deps.sinkRoom();
      detected = await batch.detected;
      if (deps.hits !== undefined) await deps.hits(detected.correlate, lineSequences(units));
      // The batch's parse errors and oversized lines are dead-lettered below, where nothing may await:
      // wait for their room here.
      let deadLetters = detected.parseErrors.length;
      for (const u of units) deadLetters += u.rejected.length;
      if (deadLetters > 0) await deps.decoder.room(deadLetters);
    } catch (error) {
      const failure = error instanceof Error ? error : new Error(String(error));
      for (const u of units) u.settle?.({ ok: false, error: failure });
      throw failure;
    }
    if (deps.observe?.active === true) deps.observe.publish(texts);
    if (detected.observed !== undefined) deps.observed?.(detected.observed);
    // From here to commitBatch nothing awaits but enrichment and cluster publishing: ordinals and journal order belong to this batch.
    const active = deps.rules();
    const now = this.ctx.clock.now();
    deps.journal.at = now;
    const started = performance.now();
    const ordinal0 = deps.store.nextInputOrdinal;
    let outbox: OutboxDraft[] = [];
    const lines: CommittedResult[] = [];
    /** Per line of `lines`: the index in `found` of a detection's text without its id (its bytes are copied from there), else -1. */
    const bodies: number[] = [];
    for (const i of detected.parseErrors) deps.decoder.failed(lineText(texts, i));
    const { textLines, textRules, correlate } = detected;
    const found = Utf8Lines.of(detected.texts.bytes, detected.texts.ends);
    const compiled = active.ruleSet.engine.rules;
    const seqs = units.some((u) => u.sequences !== undefined) ? lineSequences(units) : undefined;
    // Per line: its detections (rule order), then the correlation results they fired.
    for (let k = 0, c = 0; k < found.length || c < correlate.length; ) {
      const next = correlate[c];
      const line = k < found.length ? Math.min(textLines[k] as number, next?.line ?? Infinity) : (next as CorrelationInput).line;
      const ordinal = ordinal0 + line;
      const seq = seqs?.[line] ?? -1;
      let n = 0;
      for (; k < found.length && textLines[k] === line; k++) {
        const result = new DetectionLine(resultIdFor(seq, ordinal, n++), this.headOf(compiled[textRules[k] as number] as CompiledRule), found, k);
        lines.push(result);
        bodies.push(k);
        outbox.push(result);
      }
      if (next === undefined || next.line !== line) continue;
      // An input filter can make several events of one line; in cluster mode (hits) partition owners correlate them.
      for (let input: CorrelationInput | undefined = next; input?.line === line; input = correlate[++c]) {
        if (deps.hits !== undefined) continue;
        for (const result of active.runtime.onEvent(input.matched, input.event, now)) {
          const result_id = resultIdFor(seq, ordinal, n++);
          // The outbox keeps the line's text: packing a string is far cheaper than packing the object.
          const text = JSON.stringify({ result_id, ...result });
          lines.push({ result_id, head: result, text });
          bodies.push(-1);
          outbox.push({ result_id, payload: text });
        }
      }
    }
    // What the alert pipeline lets through is delivered; match counters count every result.
    const enriching = deps.enrich?.apply(lines) ?? lines;
    const enriched = enriching instanceof Promise ? await enriching : enriching;
    let delivered: readonly CommittedResult[];
    if (deps.stateful !== undefined) delivered = await deps.stateful(enriched, now);
    else {
      const scored = deps.risk?.apply(enriched) ?? enriched;
      delivered = deps.alerts?.apply(scored) ?? scored;
    }
    if (delivered !== lines) outbox = delivered.map((l) => ({ result_id: l.result_id, payload: l.text }));
    const encoded = delivered === lines ? Utf8Lines.ofResults(lines, { texts: found, of: bodies }) : Utf8Lines.ofResults(delivered);
    const answers = this.answers(units, detected.parseErrors);
    const events = texts.length - detected.parseErrors.length;
    const elapsed = detected.seconds + (performance.now() - started) / 1000;
    const keyed = units.length === 1 ? units[0]?.idempotencyKey : undefined;
    const answer = answers[0];
    this.tick(active.runtime);
    const records = deps.journal.drafts.splice(0);
    deps.crash('after-eval');
    // An acknowledging source's position once every unit of this batch is in: each unit is told its share
    // in order (the NATS input records the unit's stream sequences; telling only the last unit left the
    // others out, so after a crash before their acknowledgements they were taken again), then the last
    // one's position is stored, made once.
    let last: InputUnit['position'];
    for (const u of units) {
      if (u.position === undefined) continue;
      u.position.commit(u.lines.length);
      last = u.position;
    }
    const position = last === undefined ? undefined : { source: last.source, value: last.value() };
    const commit = deps.store.commitBatch({
        records,
        outbox,
        outboxLines: encoded,
        input: {
          count: texts.length,
          source: position?.source ?? deps.source,
          ...(position !== undefined ? { position: position.value } : {}),
        },
        ...(keyed !== undefined && answer !== undefined
          ? { idempotency: { key: keyed, answer: { accepted: answer.accepted, parse_errors: answer.parseErrors }, at: now } }
          : {}),
    });
    this.reportRouting(detected);
    return { committed: this.afterCommit(commit, { units, answers, lines, delivered, encoded, events, line: texts.length, elapsed, dequeuedAt, active }) };
  }

  private headOf(rule: CompiledRule): ResultHead {
    let head = this.heads.get(rule);
    if (head === undefined) {
      head = { rule_title: rule.title, rule_id: rule.id ?? null, level: rule.level ?? null };
      this.heads.set(rule, head);
    }
    return head;
  }

  /** Each unit's answer: its lines, and its parse errors (rejected ones included). */
  private answers(units: readonly InputUnit[], parseErrors: readonly number[]): { accepted: number; parseErrors: number }[] {
    const answers: { accepted: number; parseErrors: number }[] = [];
    let end = 0;
    let e = 0;
    for (const unit of units) {
      this.deps.decoder.rejected(unit.rejected);
      end += unit.lines.length;
      let failed = unit.rejected.length;
      while (e < parseErrors.length && (parseErrors[e] as number) < end) {
        failed++;
        e++;
      }
      answers.push({ accepted: unit.lines.length, parseErrors: failed });
    }
    return answers;
  }

  private async afterCommit(commit: Promise<CommitResult>, batch: CommittingBatch): Promise<void> {
    const { deps, ctx } = this;
    const m = ctx.metrics;
    const { units, answers, lines, delivered, encoded, events, line, elapsed, dequeuedAt, active } = batch;
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
    this.countResults(lines);
    m.svc_batch_size.observe(line);
    if (events > 0) {
      const perEvent = elapsed / events;
      for (let i = 0; i < events; i++) m.svc_event_processing_seconds.observe(perEvent);
    }
    m.svc_correlation_state_entries.set(active.runtime.stateEntries);
    units.forEach((u, i) => {
      const a = answers[i];
      if (a !== undefined) u.settle?.({ ok: true, accepted: a.accepted, parseErrors: a.parseErrors });
    });
    deps.committed(delivered, firstOseq, encoded);
    m.svc_pipeline_latency_seconds.observe((ctx.clock.now() - dequeuedAt) / 1000);
  }

  /** `svc_rules_pruned_by_logsource_total` / `svc_events_without_logsource_total` from the batch's engine counters. */
  private reportRouting(detected: DetectedBatch): void {
    const m = this.ctx.metrics;
    if (detected.rulesPrunedByLogsource > 0) m.svc_rules_pruned_by_logsource_total.inc(detected.rulesPrunedByLogsource);
    if (detected.eventsWithoutLogsource > 0) m.svc_events_without_logsource_total.inc(detected.eventsWithoutLogsource);
  }

  /**
   * Journals what is buffered (ticks, `$definitions`, silences) without input, with the `emitted`
   * results of timers in the same transaction; resolves with the outbox sequence of the first.
   */
  async commitJournal(emitted: readonly CommittedResult[] = []): Promise<number> {
    const records = this.deps.journal.drafts.splice(0);
    if (records.length === 0 && emitted.length === 0) return -1;
    const outbox = emitted.map((l) => ({ result_id: l.result_id, payload: l.text }));
    const { firstOseq } = await this.deps.store.commitBatch(outbox.length > 0 ? { records, outbox } : { records });
    return firstOseq;
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

  /** Match counters of a committed batch, one increment per rule (label lookups are not free). */
  private countResults(lines: readonly CommittedResult[]): void {
    const m = this.ctx.metrics;
    const perRule = new Map<ResultHead, number>();
    for (const { head } of lines) {
      if (head.correlation_type === undefined) perRule.set(head, (perRule.get(head) ?? 0) + 1);
      else this.countCorrelation(head, head.correlation_type);
    }
    let detections = 0;
    for (const [head, n] of perRule) {
      detections += n;
      let c = this.byRule.get(head);
      if (c === undefined) {
        c = m.svc_detection_matches_by_rule_total.labels({ rule_title: head.rule_title, level: head.level ?? LEVEL_UNKNOWN });
        this.byRule.set(head, c);
      }
      c.inc(n);
    }
    if (detections === 0) return;
    this.totals.detections += detections;
    m.svc_detection_matches_total.inc(detections);
  }

  private countCorrelation(result: ResultHead, type: string): void {
    const m = this.ctx.metrics;
    const level = result.level ?? LEVEL_UNKNOWN;
    this.totals.correlations++;
    m.svc_correlation_matches_total.inc();
    const key = `${result.rule_title}\u0000${level}\u0000${type}`;
    let c = this.byCorrelation.get(key);
    if (c === undefined) {
      c = m.svc_correlation_matches_by_rule_total.labels({ rule_title: result.rule_title, level, correlation_type: type });
      this.byCorrelation.set(key, c);
    }
    c.inc();
  }
}
