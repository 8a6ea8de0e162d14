import type { RiskFile } from '../../protocol/index.js';
import { fnv1a64, ruleOf } from '../alert/selectors.js';
import type { AlertResult } from '../alert/selectors.js';
import { InternTable } from '../alert/intern.js';
import { RiskAccumulator, statsOf } from './accumulator.js';
import type { Contribution, RiskEntityState, RiskTrigger } from './accumulator.js';
import { extractObjects, resolveScore, sharedTactics, tacticsOf } from './annotate.js';
import type { RiskObject } from './annotate.js';
import { compileRiskConfig } from './config.js';
import type { RiskConfig } from './config.js';

/** What the layer counts (§8.7); the daemon maps it to metrics, replay ignores it. */
export interface RiskObserver {
  annotation(action: 'scored' | 'no_entity' | 'skipped', score?: number, objects?: number): void;
  eviction(count: number): void;
  incident(trigger: RiskTrigger): void;
}

export const quietRiskObserver: RiskObserver = { annotation: () => undefined, eviction: () => undefined, incident: () => undefined };

/** What the accumulator took from one result: the journal records it, replay re-applies it. */
export interface RiskAccumulation {
  readonly objects: readonly RiskObject[];
  readonly c: Contribution;
}

/** The `enrichments` the layer adds to a result (§8.2). */
export type RiskAnnotation = {
  readonly 'risk.score': number;
  readonly 'risk.objects'?: readonly RiskObject[];
};

/** One result through the layer: the items to dispatch before it, and how the result goes on. */
export interface RiskOutcome {
  readonly before: readonly AlertResult[];
  /** Undefined when the layer leaves the result as it is. */
  readonly annotation?: RiskAnnotation;
  /** The result goes on without its event payloads (`strip_event`). */
  readonly strip: boolean;
  readonly accumulated?: RiskAccumulation;
}

export type RiskStatePiece = { readonly t: 'config'; readonly file: RiskFile | null } | { readonly t: 'entity'; readonly entity: RiskEntityState };

/** An entity as `GET /api/v1/risk` lists it (§8.5). */
export interface RiskEntityView {
  readonly entity_type: string;
  readonly entity_value: string;
  readonly score: number;
  readonly tactic_count: number;
  readonly source_count: number;
  readonly result_count: number;
  readonly window_start: number;
  readonly window_end: number;
  readonly last_fired?: number;
}

/**
 * A deterministic id in UUID v4 form for the `k`-th risk incident of the result `seed` (a journal
 * position): replay derives the same id, so an incident is never emitted under two ids.
 */
export function riskIncidentId(seed: string, k: number): string {
  const hex = (fnv1a64(`${seed}#${k}`) + fnv1a64(`${k}#${seed}`)).split('');
  hex[12] = '4';
  hex[16] = '89ab'[parseInt(hex[16] as string, 16) & 3] as string;
  const h = hex.join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** The result without event payloads and without the `result_id` of its line. */
function stripEvents(result: AlertResult): AlertResult {
  const { event: _e, events: _es, event_refs: _r, result_id: _id, ...rest } = result;
  return rest;
}

/** The result as the layer hands it on: its annotation merged into `enrichments`, event payloads stripped when asked. */
export function annotatedResult(result: AlertResult, o: RiskOutcome): AlertResult {
  if (o.annotation === undefined) return result;
  const base = o.strip ? stripEvents(result) : result;
  const own = base['enrichments'];
  return { ...base, enrichments: own === undefined ? o.annotation : { ...(typeof own === 'object' && own !== null ? own : {}), ...o.annotation } };
}

const NOTHING_BEFORE: readonly AlertResult[] = Object.freeze([]);
const UNCHANGED: RiskOutcome = { before: NOTHING_BEFORE, strip: false };

/** Contribution texts that repeat across results (rule ids, levels), held once. */
const TEXTS = new InternTable<string>();

/** A contribution as an entity keeps it, its repeating parts shared; `tactics` is shared already (`sharedTactics`). */
function contribution(ts: number, score: number, tactics: readonly string[], ruleText: string, level: string | undefined, result: AlertResult | undefined): Contribution {
  const rule = TEXTS.get(ruleText, () => ruleText);
  // Whole literals, not keys added later: an entity holds many contributions, and an added key costs a property store each.
  if (level === undefined) return result === undefined ? { ts, score, tactics, rule } : { ts, score, tactics, rule, result };
  const lvl = TEXTS.get(level, () => level);
  return result === undefined ? { ts, score, tactics, rule, level: lvl } : { ts, score, tactics, rule, level: lvl, result };
}

/**
 * The risk layer (daemon-semantics §8): annotation, risk events and the per-entity accumulator,
 * with its config. Time is an argument; nothing here reads a clock or does I/O.
 */
export class RiskLayer {
  private file: RiskFile | undefined;
  private compiled: RiskConfig | undefined;
  readonly accumulator = new RiskAccumulator();

  get config(): RiskConfig | undefined {
    return this.compiled;
  }

  get configFile(): RiskFile | undefined {
    return this.file;
  }

  /** Loads (or unloads) a config; throws AlertConfigError and keeps the old one. Without an incident block the accumulator is cleared (§8.4). */
  load(file: RiskFile | undefined): void {
    const compiled = file === undefined ? undefined : compileRiskConfig(file);
    this.file = file;
    this.compiled = compiled;
    if (compiled?.incident === undefined) this.accumulator.clear();
  }

  /** §8.2 for one result at `now`; `seed` (its result id) names the incidents it fires. */
  process(result: AlertResult, now: number, seed: string, observer: RiskObserver): RiskOutcome {
    const config = this.compiled;
    if (config === undefined) return UNCHANGED;
    if (!config.inScope(result)) {
      observer.annotation('skipped');
      return UNCHANGED;
    }
    const score = resolveScore(config, result);
    const objects = extractObjects(config, result);
    observer.annotation(objects.length === 0 ? 'no_entity' : 'scored', score, objects.length);
    const rule = ruleOf(result);
    const level = typeof result['level'] === 'string' ? result['level'] : undefined;
    let before = NOTHING_BEFORE;
    if (config.emitRiskEvents) {
      before = objects.map((o) => ({ risk_event: true, timestamp: now, rule, rule_title: result['rule_title'], ...(level !== undefined ? { level } : {}), risk_score: score, risk_object: o }));
    }
    const annotation: RiskAnnotation = objects.length > 0 ? { 'risk.score': score, 'risk.objects': objects } : { 'risk.score': score };
    if (config.incident === undefined || objects.length === 0) return { before, annotation, strip: config.stripEvent };
    const c = contribution(now, score, tacticsOf(result), rule, level, config.incident.include === 'results' ? stripEvents(result) : undefined);
    const fired = this.record(objects, c, now, seed, observer);
    if (fired.length > 0) before = before.length === 0 ? fired : [...before, ...fired];
    return { before, annotation, strip: config.stripEvent, accumulated: { objects, c } };
  }

  /** §8.3 for each object of one result (a replayed accumulation): the risk incidents it fires, in object order. */
  accumulate(a: RiskAccumulation, now: number, seed: string, observer: RiskObserver): readonly AlertResult[] {
    const { ts, score, tactics, rule, level, result } = a.c;
    return this.record(a.objects, contribution(ts, score, sharedTactics(tactics), rule, level, result), now, seed, observer);
  }

  /** Records the contribution `c` (its parts shared) for each object. */
  private record(objects: readonly RiskObject[], c: Contribution, now: number, seed: string, observer: RiskObserver): readonly AlertResult[] {
    const incident = this.compiled?.incident;
    if (incident === undefined) return [];
    let out: AlertResult[] | undefined;
    for (const o of objects) {
      const k = out?.length ?? 0;
      const r = this.accumulator.record(incident, o, c, now, () => riskIncidentId(seed, k));
      if (r.t === 'evicted') observer.eviction(1);
      else if (r.t === 'fired') {
        observer.incident(r.trigger);
        (out ??= []).push(r.record);
      }
    }
    return out ?? NOTHING_BEFORE;
  }

  /** True when a tick at `now` would change the state (so only those are run and journaled). */
  due(now: number): boolean {
    const incident = this.compiled?.incident;
    return incident !== undefined && this.accumulator.expiring(incident.window, now);
  }

  /** The 1 s tick: expiry and evictions of emptied entities. */
  tick(now: number, observer: RiskObserver): void {
    const incident = this.compiled?.incident;
    if (incident === undefined) return;
    const removed = this.accumulator.tick(incident.window, now);
    if (removed > 0) observer.eviction(removed);
  }

  /** Open entities at `now`: those with a contribution newer than the cutoff (§8.5). */
  entities(now: number): RiskEntityView[] {
    const incident = this.compiled?.incident;
    if (incident === undefined) return [];
    const cutoff = now - incident.window;
    const out: RiskEntityView[] = [];
    for (const e of this.accumulator.entities.values()) {
      const live = e.contributions.filter((c) => c.ts > cutoff);
      if (live.length === 0) continue;
      const s = statsOf({ ...e, contributions: live }, incident.maxSourcesPerEntity);
      out.push({
        entity_type: e.type,
        entity_value: e.value,
        score: s.score,
        tactic_count: s.tactics.length,
        source_count: s.sourceCount,
        result_count: s.resultCount,
        window_start: s.windowStart,
        window_end: s.windowEnd,
        ...(e.lastFired !== undefined ? { last_fired: e.lastFired } : {}),
      });
    }
    return out;
  }

  /** The state as snapshot pieces: config first, so a restore compiles before it seeds. */
  *pieces(): Iterable<RiskStatePiece> {
    yield { t: 'config', file: this.file ?? null };
    for (const entity of this.accumulator.states()) yield { t: 'entity', entity };
  }

  /** Replaces the whole state with snapshot pieces. Throws AlertConfigError when the stored config no longer compiles. */
  restore(pieces: readonly RiskStatePiece[]): void {
    this.load(undefined);
    const entities: RiskEntityState[] = [];
    for (const p of pieces) {
      if (p.t === 'config') this.load(p.file ?? undefined);
      else entities.push(p.entity);
    }
    this.accumulator.restore(entities);
  }
}
