import Type from 'typebox';
import Compile from 'typebox/compile';
import { AlertPipeline, quietObserver } from '../actors/index.js';
import type { AlertObserver, AlertResult, AlertStatePiece, Silence, SilenceCreation } from '../actors/index.js';
import type { AlertPipelineFile, SilenceSpec } from '../protocol/index.js';
import type { MetricHandles } from '../protocol/index.js';
import { resultIdForTimer } from '../state/index.js';
import type { JournaledKind, ReplayOutcome } from '../state/index.js';
import type { CommittedResult, JournalBuffer } from './batch-processor.js';

/** Journal and snapshot `kind` of the alert pipeline (issue 13). */
export const ALERT_KIND = 'alert';

/**
 * The alert pipeline's journal events: its inputs, which the pure pipeline turns into the same state
 * (and emissions) live and at replay. A `result` carries the in-scope result as the stage saw it
 * (without `result_id`; `seed` is that id, which names entity-graph incidents).
 */
const AlertEventSchema = Type.Union([
  Type.Object({ t: Type.Literal('config'), file: Type.Unknown() }),
  Type.Object({ t: Type.Literal('result'), now: Type.Integer(), seed: Type.String(), r: Type.Record(Type.String(), Type.Unknown()) }),
  Type.Object({ t: Type.Literal('tick'), now: Type.Integer() }),
  Type.Object({ t: Type.Literal('silence'), silence: Type.Object({ id: Type.String(), matchers: Type.Array(Type.Unknown()), origin: Type.Literal('api') }) }),
  Type.Object({ t: Type.Literal('unsilence'), id: Type.String() }),
]);
type AlertEvent =
  | { readonly t: 'config'; readonly file: AlertPipelineFile | null }
  | { readonly t: 'result'; readonly now: number; readonly seed: string; readonly r: AlertResult }
  | { readonly t: 'tick'; readonly now: number }
  | { readonly t: 'silence'; readonly silence: Silence }
  | { readonly t: 'unsilence'; readonly id: string };
const isAlertEvent = Compile(AlertEventSchema);
const PIECES = new Set(['config', 'tick', 'dedup', 'incident', 'silence', 'source']);

/** UNIX seconds of a clock reading in ms (alert-pipeline time, daemon-semantics §0). */
export const unixSeconds = (ms: number): number => Math.floor(ms / 1000);

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

/**
 * The alert pipeline as a stage of the batch order (§6: after correlation, before the tail and the
 * outbox) and as a journaled kind. Every input it takes is journaled into `journal` (the batch's or a
 * tick's own commit); replay feeds the records back through the same pure pipeline.
 */
export class AlertStage {
  readonly pipeline = new AlertPipeline();

  constructor(
    private readonly journal: JournalBuffer,
    private readonly observer: AlertObserver,
    private readonly metrics?: MetricHandles,
  ) {}

  get active(): boolean {
    return this.pipeline.config !== undefined;
  }

  /** Loads a checked pipeline file (or none), journaling it when it differs from the one in force. Throws AlertConfigError. */
  load(file: AlertPipelineFile | undefined): void {
    const before = JSON.stringify(this.pipeline.configFile ?? null);
    this.pipeline.load(file);
    if (JSON.stringify(file ?? null) !== before) this.record({ t: 'config', file: file ?? null });
  }

  /** A batch's results through the pipeline, in order: what survives, with its new text where it changed. */
  apply(lines: readonly CommittedResult[]): readonly CommittedResult[] {
    if (!this.active) return lines;
    const started = performance.now();
    const now = unixSeconds(this.journal.at);
    const out: CommittedResult[] = [];
    for (const line of lines) {
      if (line.bypass === true) {
        out.push(line);
        continue;
      }
      const { result_id, ...r } = JSON.parse(line.text) as AlertResult & { result_id: string };
      if (!(this.pipeline.config?.inScope(r) ?? false)) {
        out.push(line);
        continue;
      }
      this.record({ t: 'result', now, seed: result_id, r });
      const kept = this.pipeline.process(r, now, result_id, this.observer);
      if (kept === undefined) continue;
      out.push(kept === r ? line : { result_id, head: line.head, text: JSON.stringify({ result_id, ...kept }) });
    }
    this.observe(now, started);
    return out;
  }

  /**
   * The 1 s tick at `now` (UNIX seconds): its emissions with deterministic ids (actor, trigger, tick
   * time), journaled only when there is state for it to change.
   */
  tick(now: number): CommittedResult[] {
    if (!this.active || now <= this.pipeline.tickedAt) return [];
    const started = performance.now();
    const p = this.pipeline;
    // Nothing to time out: the tick would change nothing, so it is neither run nor journaled.
    if (p.dedup.alerts.size + p.incidents.incidents.size + p.silences.all().length + p.inhibition.entries().length === 0) {
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
      isEvent: (event): event is AlertEvent => isAlertEvent.Check(event),
      codec: {
        version: 1,
        encode: (piece) => piece,
        decode: (encoded) => (typeof encoded === 'object' && encoded !== null && PIECES.has((encoded as { t?: string }).t ?? '') ? (encoded as AlertStatePiece) : undefined),
      },
      restore: (states) => pipeline.restore(states),
      replay: (_key, event) => replayInto(pipeline, event),
      states: () => [...pipeline.pieces()].map((p, i) => [`${i}`, p] as const),
    };
  }

  private record(event: AlertEvent): void {
    this.journal.drafts.push({ at: this.journal.at, kind: ALERT_KIND, key: '', event });
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
