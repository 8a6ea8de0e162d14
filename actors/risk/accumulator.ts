import type { AlertResult } from '../alert/selectors.js';
import type { RiskIncidentConfig } from './config.js';
import { OldestIndex } from './oldest-index.js';

/** One result's part in an entity's window (§8.3). `ts` is UNIX seconds. */
export interface Contribution {
  readonly ts: number;
  readonly score: number;
  readonly tactics: readonly string[];
  readonly rule: string;
  readonly level?: string;
  /** The event-stripped result, only with `include: results`. */
  readonly result?: AlertResult;
}

export interface RiskEntityState {
  readonly type: string;
  readonly value: string;
  /** Oldest first. */
  contributions: Contribution[];
  lastFired?: number;
  lastSeen: number;
}

/**
 * An entity as the accumulator holds it: its state, the sum of its window's scores, its oldest
 * contribution's time (-∞ with none: due for removal) and its place in the index by that time, so a
 * result need not read every contribution, nor a tick every entity. Not snapshotted: a restore works them out.
 */
interface LiveEntity extends RiskEntityState {
  score: number;
  oldest: number;
  slot: number;
}

export type RiskTrigger = 'score' | 'tactic_count';

/** The window statistics of an entity (§8.3 step 4). */
export interface RiskStats {
  readonly score: number;
  readonly tactics: readonly string[];
  readonly sources: readonly string[];
  readonly sourceCount: number;
  readonly resultCount: number;
  readonly windowStart: number;
  readonly windowEnd: number;
}

/** What recording one object did. */
export type RecordOutcome = { readonly t: 'evicted' } | { readonly t: 'kept' } | { readonly t: 'fired'; readonly trigger: RiskTrigger; readonly record: AlertResult };

const KEPT: RecordOutcome = { t: 'kept' };
const EVICTED: RecordOutcome = { t: 'evicted' };

const keyOf = (type: string, value: string): string => `${type}\u0000${value}`;

export function statsOf(entity: RiskEntityState, maxSources: number): RiskStats {
  let score = 0;
  const tactics: string[] = [];
  const sources = new Set<string>();
  for (const c of entity.contributions) {
    score += c.score;
    for (const t of c.tactics) if (!tactics.includes(t)) tactics.push(t);
    sources.add(c.rule);
  }
  const first = entity.contributions[0];
  const last = entity.contributions[entity.contributions.length - 1];
  return {
    score,
    tactics,
    sources: [...sources].slice(0, maxSources),
    sourceCount: sources.size,
    resultCount: entity.contributions.length,
    windowStart: first?.ts ?? 0,
    windowEnd: last?.ts ?? 0,
  };
}

/** Distinct tactics of the window, counted without building the statistics. */
function tacticCount(entity: RiskEntityState): number {
  const seen: string[] = [];
  for (const c of entity.contributions) for (const t of c.tactics) if (!seen.includes(t)) seen.push(t);
  return seen.length;
}

/** The threshold the window crosses (score first), computing only what the thresholds ask for: most results cross none. */
function triggerOf(config: RiskIncidentConfig, entity: LiveEntity): RiskTrigger | undefined {
  if (config.scoreThreshold !== undefined && entity.score >= config.scoreThreshold) return 'score';
  if (config.tacticThreshold !== undefined && tacticCount(entity) >= config.tacticThreshold) return 'tactic_count';
  return undefined;
}

/** The RiskIncidentResult of §8.5. */
function incidentRecord(config: RiskIncidentConfig, entity: RiskEntityState, stats: RiskStats, trigger: RiskTrigger, id: string): AlertResult {
  const kept = entity.contributions.slice(-config.maxResultsPerIncident);
  return {
    risk_incident_id: id,
    entity_type: entity.type,
    entity_value: entity.value,
    trigger,
    score: stats.score,
    ...(config.scoreThreshold !== undefined ? { score_threshold: config.scoreThreshold } : {}),
    tactic_count: stats.tactics.length,
    ...(config.tacticThreshold !== undefined ? { tactic_count_threshold: config.tacticThreshold } : {}),
    tactics: stats.tactics,
    sources: stats.sources,
    source_count: stats.sourceCount,
    window_start: stats.windowStart,
    window_end: stats.windowEnd,
    result_count: stats.resultCount,
    ...(config.include === 'refs'
      ? { refs: kept.map((c) => ({ rule: c.rule, ...(c.level !== undefined ? { level: c.level } : {}), score: c.score, timestamp: c.ts })) }
      : { results: kept.flatMap((c) => (c.result === undefined ? [] : [c.result])) }),
  };
}

/** Drops leading contributions with `ts ≤ cutoff`. */
function expire(entity: LiveEntity, cutoff: number): void {
  if (entity.oldest > cutoff) return;
  let n = 0;
  while (n < entity.contributions.length && (entity.contributions[n] as Contribution).ts <= cutoff) n++;
  if (n > 0) dropOldest(entity, n);
}

/** Drops the `n` oldest contributions, their scores off the sum. */
function dropOldest(entity: LiveEntity, n: number): void {
  for (let i = 0; i < n; i++) entity.score -= (entity.contributions[i] as Contribution).score;
  entity.contributions.splice(0, n);
  entity.oldest = entity.contributions[0]?.ts ?? -Infinity;
}

const sumOfScores = (contributions: readonly Contribution[]): number => contributions.reduce((sum, c) => sum + c.score, 0);

/**
 * The per-entity risk accumulator (daemon-semantics §8.3). Pure: time is an argument (UNIX seconds)
 * and incident ids come from the caller, so replaying the same calls rebuilds the same state.
 */
export class RiskAccumulator {
  readonly entities = new Map<string, LiveEntity>();
  /** The entities by oldest contribution: a tick reads only those it expires. */
  readonly byOldest = new OldestIndex<LiveEntity>();
  /** Retained contributions over all entities (`svc_risk_state_entries`). */
  entries = 0;

  /** Records one object of a result; `id` names the incident if this fires one (made only then). */
  record(config: RiskIncidentConfig, object: { readonly type: string; readonly value: string }, c: Contribution, now: number, id: () => string): RecordOutcome {
    const key = keyOf(object.type, object.value);
    let entity = this.entities.get(key);
    const opened = entity === undefined;
    if (entity === undefined) {
      if (this.entities.size >= config.maxOpenEntities) return EVICTED;
      entity = { type: object.type, value: object.value, contributions: [], lastSeen: now, score: 0, oldest: -Infinity, slot: -1 };
      this.entities.set(key, entity);
    }
    const before = entity.contributions.length;
    const was = entity.oldest;
    expire(entity, now - config.window);
    entity.lastSeen = now;
    entity.contributions.push(c);
    entity.score += c.score;
    if (entity.contributions.length === 1) entity.oldest = c.ts;
    if (entity.contributions.length > config.maxResultsPerIncident) dropOldest(entity, entity.contributions.length - config.maxResultsPerIncident);
    if (opened) this.byOldest.add(entity);
    // Its key is at most `was`: only an oldest below that (a contribution older than the one it followed) needs the index.
    else if (entity.oldest < was) this.byOldest.lowered(entity);
    this.entries += entity.contributions.length - before;
    const trigger = triggerOf(config, entity);
    if (trigger === undefined) return KEPT;
    if (entity.lastFired !== undefined && now - entity.lastFired < config.cooldown) return KEPT;
    entity.lastFired = now;
    return { t: 'fired', trigger, record: incidentRecord(config, entity, statsOf(entity, config.maxSourcesPerEntity), trigger, id()) };
  }

  /** True when a tick at `now` would drop something. */
  expiring(window: number, now: number): boolean {
    return this.byOldest.due(now - window) !== undefined;
  }

  /** The 1 s tick (§8.3): expires contributions, removes emptied entities; returns how many were removed. */
  tick(window: number, now: number): number {
    const cutoff = now - window;
    let removed = 0;
    // An entity left with contributions has its oldest above the cutoff now, so `due` moves past it.
    for (let e = this.byOldest.due(cutoff); e !== undefined; e = this.byOldest.due(cutoff)) {
      const before = e.contributions.length;
      expire(e, cutoff);
      this.entries -= before - e.contributions.length;
      if (e.contributions.length === 0) {
        this.byOldest.removeTop();
        this.entities.delete(keyOf(e.type, e.value));
        removed++;
      }
    }
    return removed;
  }

  clear(): void {
    this.entities.clear();
    this.byOldest.rebuild([]);
    this.entries = 0;
  }

  /** The entities as snapshots hold them. */
  *states(): Iterable<RiskEntityState> {
    for (const { score: _s, oldest: _o, slot: _p, ...state } of this.entities.values()) yield state;
  }

  /** Replaces the state with restored entities. */
  restore(entities: readonly RiskEntityState[]): void {
    this.clear();
    for (const e of entities) {
      this.entities.set(keyOf(e.type, e.value), { ...e, contributions: [...e.contributions], score: sumOfScores(e.contributions), oldest: e.contributions[0]?.ts ?? -Infinity, slot: -1 });
      this.entries += e.contributions.length;
    }
    this.byOldest.rebuild(this.entities.values());
  }
}
