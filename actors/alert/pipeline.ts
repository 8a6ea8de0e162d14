import type { AlertPipelineFile, SilenceSpec } from '../../protocol/index.js';
import { compileAlertConfig, compileSilence, DEFAULT_MAX_SILENCES } from './config.js';
import type { AlertConfig, Silence } from './config.js';
import { DedupStore } from './dedup.js';
import type { ActiveAlert, DedupDecision, DedupOpened } from './dedup.js';
import { InhibitionIndex } from './inhibition.js';
import type { InhibitSource } from './inhibition.js';
import { IncidentStore, incidentRecord } from './incidents.js';
import type { GroupDecision, Incident, IncidentTrigger, Overmerge } from './incidents.js';
import type { AlertResult } from './selectors.js';
import { SilenceStore } from './silences.js';

/** What the pipeline counts (§9.12); the daemon maps it to metrics, replay ignores it. */
export interface AlertObserver {
  inhibited(rule: string): void;
  silenced(): void;
  dedup(action: 'emitted' | 'folded' | 'repeat' | 'resolved'): void;
  /** A dedup summary left (repeat or resolved); `evicted` when the alert was resolved away. */
  summary(evicted: boolean): void;
  incident(trigger: IncidentTrigger): void;
  overmerge(guard: Overmerge): void;
}

export const quietObserver: AlertObserver = {
  inhibited: () => undefined,
  silenced: () => undefined,
  dedup: () => undefined,
  summary: () => undefined,
  incident: () => undefined,
  overmerge: () => undefined,
};

/** A record a tick emits; `actor` and `trigger` name it for its deterministic result id. */
export interface AlertEmission {
  readonly actor: string;
  readonly trigger: string;
  readonly record: AlertResult;
}

/** One piece of the pipeline's state as snapshots store it, each its own entry. */
export type AlertStatePiece =
  | { readonly t: 'config'; readonly file: AlertPipelineFile | null }
  | { readonly t: 'tick'; readonly now: number }
  | { readonly t: 'dedup'; readonly fingerprint: string; readonly alert: ActiveAlert }
  | { readonly t: 'incident'; readonly incident: Incident }
  | { readonly t: 'silence'; readonly silence: Silence }
  | { readonly t: 'source'; readonly source: InhibitSource };

export type SilenceCreation = { readonly ok: true; readonly silence: Silence } | { readonly ok: false; readonly reason: 'invalid'; readonly detail: string } | { readonly ok: false; readonly reason: 'limit_reached'; readonly max: number };

/**
 * What one result changed in the pipeline state: its journal record. Replay applies it as the live
 * run did, without the result: inhibition sources it registered (`[rule, equal-key]`), the dedup
 * fold or new alert, the incident grouping input. Undefined parts changed nothing.
 */
export interface AlertDecision {
  readonly src?: readonly (readonly [string, string])[];
  readonly dedup?: DedupDecision;
  readonly group?: GroupDecision;
}

/** One result through the pipeline: what survives (`kept`, joined to `incident`), and the decision to journal. */
export interface AlertStep {
  readonly kept?: AlertResult;
  readonly incident?: string;
  readonly decision?: AlertDecision;
}

/** Removes event payloads (a detection's `event`, a correlation's `events`) and the `result_id` of the line. */
function stripEvents(result: AlertResult): AlertResult {
  if (!('event' in result) && !('events' in result) && !('result_id' in result)) return result;
  const { event: _event, events: _events, result_id: _id, ...rest } = result;
  return rest;
}

export function withIncident(result: AlertResult, id: string): AlertResult {
  const enrichments = result['enrichments'];
  return { ...result, enrichments: { ...(typeof enrichments === 'object' && enrichments !== null ? enrichments : {}), incident_id: id } };
}

/**
 * The alert pipeline's state and its transitions (daemon-semantics §9): inhibition → silence → dedup →
 * grouping per result, and the 1 s tick. Time is an argument (UNIX seconds); nothing here reads a
 * clock or does I/O, so replaying the same inputs rebuilds the same state and emissions.
 */
export class AlertPipeline {
  private file: AlertPipelineFile | undefined;
  private compiled: AlertConfig | undefined;
  readonly silences = new SilenceStore();
  readonly inhibition = new InhibitionIndex();
  readonly dedup = new DedupStore();
  readonly incidents = new IncidentStore();
  /** Time of the newest tick applied; -1 before any. */
  tickedAt = -1;

  get config(): AlertConfig | undefined {
    return this.compiled;
  }

  get configFile(): AlertPipelineFile | undefined {
    return this.file;
  }

  /** Loads (or, with undefined, unloads) a pipeline file; throws AlertConfigError and keeps the old one. */
  load(file: AlertPipelineFile | undefined): void {
    const compiled = file === undefined ? undefined : compileAlertConfig(file);
    this.file = file;
    this.compiled = compiled;
    this.silences.seedStatic(compiled?.silences ?? []);
  }

  /** One result through §9.4; undefined when it was dropped (inhibited, silenced or folded). */
  process(result: AlertResult, now: number, seed: string, observer: AlertObserver): AlertResult | undefined {
    const { kept, incident } = this.step(result, now, seed, observer);
    return kept === undefined || incident === undefined ? kept : withIncident(kept, incident);
  }

  /**
   * One result through §9.4 (inhibition → silence → dedup → grouping): decided on the state as it
   * is, then applied. A `result_id` in the result is not kept in stored samples.
   */
  step(result: AlertResult, now: number, seed: string, observer: AlertObserver): AlertStep {
    const config = this.compiled;
    if (config === undefined || !config.inScope(result)) return { kept: result };
    const decision: { src?: [string, string][]; dedup?: DedupDecision; group?: GroupDecision } = {};
    if (config.inhibitRules.length > 0) {
      const rule = this.inhibition.inhibiting(config.inhibitRules, result, now);
      if (rule !== undefined) {
        observer.inhibited(rule.name);
        return {};
      }
      const src = InhibitionIndex.sourcesOf(config.inhibitRules, result);
      if (src.length > 0) decision.src = src;
    }
    if (this.silences.muting(result, now) !== undefined) {
      observer.silenced();
      return decision.src === undefined ? {} : this.commit(decision, now, observer);
    }
    // The event-stripped copy is made at most once, and only when something keeps it.
    let copy: AlertResult | undefined;
    const stripped = (): AlertResult => (copy ??= stripEvents(result));
    let opened: DedupOpened | undefined;
    if (config.dedup !== undefined) {
      const d = this.dedup.decide(config.dedup, result, stripped);
      observer.dedup(d.fire);
      if (d.decision !== undefined) decision.dedup = d.decision;
      if (d.fire === 'folded') return this.commit(decision, now, observer);
      opened = d.opened;
    }
    if (config.group !== undefined) {
      const group = this.incidents.decide(config.group, result, stripped, seed);
      if (group !== undefined) decision.group = group;
    }
    const kept = config.stripEvent ? stripped() : result;
    if (decision.src === undefined && decision.dedup === undefined && decision.group === undefined) return { kept };
    const applied = this.commit(decision, now, observer, opened);
    return applied.incident === undefined ? { kept, decision } : { kept, incident: applied.incident, decision };
  }

  /**
   * Applies a decision at `now` (live right after `step` decided it, with the values a new dedup
   * entry was serialised from, and at replay).
   */
  commit(decision: AlertDecision, now: number, observer: AlertObserver, opened?: DedupOpened): { readonly decision: AlertDecision; readonly incident?: string } {
    if (decision.src !== undefined) this.inhibition.register(decision.src, now);
    if (decision.dedup !== undefined) this.dedup.apply(decision.dedup, now, opened);
    const group = this.compiled?.group;
    if (decision.group === undefined || group === undefined) return { decision };
    const incident = this.incidents.apply(group, decision.group, now, (g) => observer.overmerge(g));
    return incident === undefined ? { decision } : { decision, incident };
  }

  /** The 1 s tick of §6: dedup summaries first, then incident emissions; silences and sources expire. */
  tick(now: number, observer: AlertObserver): AlertEmission[] {
    this.tickedAt = Math.max(this.tickedAt, now);
    const config = this.compiled;
    if (config === undefined) return [];
    const out: AlertEmission[] = [];
    if (config.dedup !== undefined) {
      for (const s of this.dedup.tick(config.dedup, now)) {
        observer.dedup(s.state);
        observer.summary(s.state === 'resolved');
        out.push({ actor: `dedup:${s.fingerprint}`, trigger: s.state, record: s.record });
      }
    }
    if (config.group !== undefined) {
      for (const e of this.incidents.tick(config.group, now)) {
        observer.incident(e.trigger);
        out.push({ actor: `incident:${e.id}`, trigger: e.trigger, record: e.record });
      }
    }
    this.silences.expire(now);
    this.inhibition.prune(config.inhibitRules, now);
    return out;
  }

  /** Checks a silence for the API store: the message names the field at fault. */
  checkSilence(spec: SilenceSpec, id: string): SilenceCreation {
    const max = this.compiled?.maxSilences ?? DEFAULT_MAX_SILENCES;
    let silence: Silence;
    try {
      silence = compileSilence(spec, 'api', id, 'silence');
    } catch (error) {
      return { ok: false, reason: 'invalid', detail: error instanceof Error ? error.message : String(error) };
    }
    if (this.silences.apiCount >= max) return { ok: false, reason: 'limit_reached', max };
    return { ok: true, silence };
  }

  /** Gauges of §9.12 at `now`. */
  gauges(now: number): { dedupEntries: number; incidentsOpen: number; silencesActive: number; inhibitSources: number } {
    return {
      dedupEntries: this.dedup.size,
      incidentsOpen: this.incidents.incidents.size,
      silencesActive: this.compiled === undefined ? 0 : this.silences.activeCount(now),
      inhibitSources: this.compiled === undefined ? 0 : this.inhibition.fresh(this.compiled.inhibitRules, now),
    };
  }

  /** Open incidents as API snapshots (`trigger: "snapshot"`); none while grouping is off (§9.11). */
  incidentSnapshots(): AlertResult[] {
    const group = this.compiled?.group;
    if (group === undefined) return [];
    return [...this.incidents.incidents.values()].map((i) => incidentRecord(i, 'open', 'snapshot', group.include));
  }

  /** The state as snapshot pieces: config first, so a restore compiles before it seeds. */
  *pieces(): Iterable<AlertStatePiece> {
    yield { t: 'config', file: this.file ?? null };
    yield { t: 'tick', now: this.tickedAt };
    for (const [fingerprint, alert] of this.dedup.stored()) yield { t: 'dedup', fingerprint, alert };
    for (const incident of this.incidents.incidents.values()) yield { t: 'incident', incident };
    for (const silence of this.silences.apiSilences()) yield { t: 'silence', silence };
    for (const source of this.inhibition.entries()) yield { t: 'source', source };
  }

  /** Replaces the whole state with snapshot pieces. Throws AlertConfigError when the stored config no longer compiles. */
  restore(pieces: readonly AlertStatePiece[]): void {
    const silences: Silence[] = [];
    const incidents: Incident[] = [];
    const sources: InhibitSource[] = [];
    const alerts: [string, ActiveAlert][] = [];
    this.load(undefined);
    for (const p of pieces) {
      if (p.t === 'config') this.load(p.file ?? undefined);
      else if (p.t === 'tick') this.tickedAt = p.now;
      else if (p.t === 'dedup') alerts.push([p.fingerprint, p.alert]);
      else if (p.t === 'incident') incidents.push(p.incident);
      else if (p.t === 'silence') silences.push(p.silence);
      else sources.push(p.source);
    }
    this.dedup.restore(alerts);
    this.silences.restoreApi(silences);
    this.incidents.restore(incidents);
    this.inhibition.restore(sources);
  }
}
