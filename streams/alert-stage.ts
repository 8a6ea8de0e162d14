import { AlertPipeline, quietObserver, withIncident } from '../actors/index.js';
import type { AlertDecision, AlertObserver, AlertResult, AlertStatePiece, SilenceCreation } from '../actors/index.js';
import type { AlertPipelineFile, SilenceSpec } from '../protocol/index.js';
import type { MetricHandles } from '../protocol/index.js';
import { resultIdForTimer } from '../state/index.js';
import type { JournaledKind, ReplayOutcome } from '../state/index.js';
import type { CommittedResult, JournalBuffer } from './batch-processor.js';
import { isAlertEvent } from './alert-events.js';
import type { AlertEvent } from './alert-events.js';
import { JournaledStage, unixSeconds } from './journaled-stage.js';
import { withEnrichments } from './result-value.js';

/** Journal and snapshot `kind` of the alert pipeline (issue 13). */
const ALERT_KIND = 'alert';

const PIECES = new Set(['config', 'tick', 'dedup', 'incident', 'silence', 'source']);

/** The §9.12 counters over the metric handles. */
export function metricsObserver(m: MetricHandles): AlertObserver {
  return {
    inhibited: (rule) => m.svc_inhibited_total.inc({ rule }),
    silenced: () => m.svc_silenced_total.inc(),
    dedup: (action) => m.svc_dedup_results_total.inc({ action }),
    summary: (evicted) => {
      m.svc_dedup_summaries_emitted_total.inc();
      if (evicted) m.svc_dedup_evictions_total.inc();
    },
    incident: (trigger) => {
      m.svc_incidents_emitted_total.inc({ trigger });
      m.svc_incident_results_total.inc();
    },
    overmerge: (guard) => m.svc_incident_overmerge_total.inc({ guard }),
  };
}

const INCIDENT_HEAD = { rule_title: 'incident', rule_id: null, level: null } as const;

/** The journal event of a decision: `{t, now, src?, dedup?, group?}`, absent parts left out (the keys a spread gives, without its cost). */
function decisionEvent(now: number, d: AlertDecision): AlertEvent {
  const e: { t: 'd'; now: number } & { -readonly [K in keyof AlertDecision]: AlertDecision[K] } = { t: 'd', now };
  if (d.src !== undefined) e.src = d.src;
  if (d.dedup !== undefined) e.dedup = d.dedup;
  if (d.group !== undefined) e.group = d.group;
  return e;
}

/**
 * The line of a result the pipeline kept: the same line when it is unchanged, with `incident_id`
 * added (`withEnrichments`) when only that changed, else re-serialised (event payloads stripped).
 */
function keptLine(line: CommittedResult, r: AlertResult, kept: AlertResult, incident: string | undefined): CommittedResult {
  if (kept === r) return incident === undefined ? line : withEnrichments(line, { incident_id: incident });
  const value = { result_id: line.result_id, ...(incident === undefined ? kept : withIncident(kept, incident)) };
  return { result_id: line.result_id, head: line.head, text: JSON.stringify(value), value };
}

/**
 * The alert pipeline as a stage of the batch order (§6: after correlation, before the tail and the
 * outbox) and as a journaled kind. Every input it takes is journaled into `journal` (the batch's or a
 * tick's own commit); replay feeds the records back through the same pure pipeline.
 */
export class AlertStage extends JournaledStage<AlertPipelineFile, Exclude<AlertEvent, { readonly t: 'config' }>> {
  readonly pipeline: AlertPipeline;

  constructor(
    journal: JournalBuffer,
    private readonly observer: AlertObserver,
    private readonly metrics?: MetricHandles,
  ) {
    const pipeline = new AlertPipeline();
    super(journal, ALERT_KIND, pipeline);
    this.pipeline = pipeline;
  }

  /** A batch's results through the pipeline, in order: what survives, with its new text where it changed. */
  apply(lines: readonly CommittedResult[]): readonly CommittedResult[] {
    if (!this.active) return lines;
    const started = performance.now();
    const out: CommittedResult[] = [];
    const now = this.forEachResult(lines, out, (line, r, now) => {
      const step = this.pipeline.step(r, now, line.result_id, this.observer);
      if (step.decision !== undefined) this.record(decisionEvent(now, step.decision));
      if (step.kept !== undefined) out.push(keptLine(line, r, step.kept, step.incident));
    });
    this.observe(now, started);
    return out;
  }

  /**
   * The 1 s tick at `now` (UNIX seconds), journaled only when there is state for it to change: its
   * emissions with deterministic ids (actor, trigger and the tick's time, which its journal record
   * holds). A stage ticks each second at most once (`now` only moves forward, also across restarts),
   * so the time names the tick; a count of ticks would shift when recovery skips a damaged record or
   * loses a snapshot entry, and name a later emission like one a sink already has.
   */
  tick(now: number): CommittedResult[] {
    if (!this.active || now <= this.pipeline.tickedAt) return [];
    const started = performance.now();
    const p = this.pipeline;
    // Nothing to time out: the tick would change nothing, so it is neither run nor journaled.
    if (p.dedup.size + p.incidents.incidents.size + p.silences.all().length + p.inhibition.entries().length === 0) {
      this.gauges(now);
      return [];
    }
    this.record({ t: 'tick', now });
    const emitted = this.pipeline.tick(now, this.observer).map((e): CommittedResult => {
      const result_id = resultIdForTimer(e.actor, e.trigger, now * 1000, 0);
      const level = typeof e.record['max_level'] === 'string' ? e.record['max_level'] : null;
      const head = e.actor.startsWith('incident:') ? { ...INCIDENT_HEAD, level } : { rule_title: String(e.record['rule_title'] ?? ''), rule_id: (e.record['rule_id'] as string | null | undefined) ?? null, level: (e.record['level'] as string | null | undefined) ?? null };
      return { result_id, head, text: JSON.stringify({ result_id, ...e.record }) };
    });
    if (emitted.length > 0) this.observe(now, started);
    else this.gauges(now);
    return emitted;
  }

  /** Checks and stores an API silence, journaled (the caller commits before answering). */
  createSilence(spec: SilenceSpec, id: string): SilenceCreation {
    const checked = this.pipeline.checkSilence(spec, id);
    if (!checked.ok) return checked;
    this.pipeline.silences.add(checked.silence);
    this.record({ t: 'silence', silence: checked.silence });
    this.gauges(unixSeconds(this.journal.at));
    return checked;
  }

  /** Removes every silence with the id, journaled; false when there was none. */
  deleteSilence(id: string): boolean {
    if (!this.pipeline.silences.remove(id)) return false;
    this.record({ t: 'unsilence', id });
    this.gauges(unixSeconds(this.journal.at));
    return true;
  }

  /** The journaled kind over this stage (recovery restores and replays into it, snapshots read it). */
  kind(): JournaledKind<AlertEvent, AlertStatePiece> {
    const pipeline = this.pipeline;
    return {
      kind: ALERT_KIND,
      malformed: 'is not an alert pipeline event',
      isEvent: isAlertEvent,
      codec: {
        // 3: the tick piece without a sequence (ids are named by tick time); 2: dedup `fields` as JSON text.
        // Older pieces still restore (a version-2 tick's `seq` is ignored, version-1 fields are upgraded).
        version: 3,
        encode: (piece) => piece,
        decode: (encoded) => (typeof encoded === 'object' && encoded !== null && PIECES.has((encoded as { t?: string }).t ?? '') ? (encoded as AlertStatePiece) : undefined),
      },
      restore: (states) => pipeline.restore(states),
      replay: (_key, event) => replayInto(pipeline, event),
      states: () => [...pipeline.pieces()].map((p, i) => [`${i}`, p] as const),
    };
  }

  private observe(now: number, started: number): void {
    this.metrics?.svc_alert_pipeline_duration_seconds.observe((performance.now() - started) / 1000);
    this.gauges(now);
  }

  /** The §9.12 gauges at `now`. */
  gauges(now: number): void {
    const m = this.metrics;
    if (m === undefined) return;
    const g = this.pipeline.gauges(now);
    m.svc_dedup_store_entries.set(g.dedupEntries);
    m.svc_incidents_open.set(g.incidentsOpen);
    m.svc_silences_active.set(g.silencesActive);
    m.svc_inhibit_sources_active.set(g.inhibitSources);
  }
}

function replayInto(pipeline: AlertPipeline, event: AlertEvent): ReplayOutcome {
  switch (event.t) {
    case 'config':
      try {
        pipeline.load(event.file ?? undefined);
      } catch (error) {
        return { unfit: `holds an alert pipeline that no longer loads: ${error instanceof Error ? error.message : String(error)}` };
      }
      return 'applied';
    case 'd':
      pipeline.commit(event, event.now, quietObserver);
      return 'applied';
    case 'result':
      pipeline.process(event.r, event.now, event.seed, quietObserver);
      return 'applied';
    case 'tick':
      pipeline.tick(event.now, quietObserver);
      return 'applied';
    case 'silence':
      pipeline.silences.add(event.silence);
      return 'applied';
    case 'unsilence':
      pipeline.silences.remove(event.id);
      return 'applied';
  }
}
