import { LEVELS } from './config.js';
import { InternTable } from './intern.js';
import type { GroupConfig } from './config.js';
import { FNV, fnv1a64, resolveSelector, ruleOf, valueText } from './selectors.js';
import type { AlertResult } from './selectors.js';

interface IncidentRef {
  readonly rule: string;
  readonly level?: string;
}

/** An incident of §9.6 (times in UNIX seconds). */
export interface Incident {
  readonly id: string;
  first_seen: number;
  last_seen: number;
  last_emitted: number;
  emitted_count: number;
  opened: boolean;
  dirty: boolean;
  /** group_by mode: ordered `[selector, value]` pairs (null when absent). */
  readonly group_by: readonly (readonly [string, unknown])[];
  /** entity mode: selector → sorted distinct values. */
  readonly entities: Record<string, string[]>;
  max_level?: string;
  rule_counts: Record<string, number>;
  result_count: number;
  refs: IncidentRef[];
  results: AlertResult[];
}

export type IncidentTrigger = 'group_wait' | 'group_interval' | 'repeat' | 'resolved';

export interface IncidentEmission {
  readonly id: string;
  readonly trigger: IncidentTrigger;
  readonly record: AlertResult;
}

export type Overmerge = 'stop_value' | 'cardinality_ceiling';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * What a result does to the incident store, as journaled: the fields of the result grouping reads,
 * nothing else. group_by: the incident `id` (and its key `pairs` when the result opens it);
 * entity_graph: the resolved entity values `ent` and the `seed` naming an incident it opens.
 */
export interface GroupDecision {
  readonly rule: string;
  readonly level?: string;
  /** `include: results`: the event-stripped result the incident keeps. */
  readonly res?: AlertResult;
  readonly id?: string;
  readonly pairs?: readonly (readonly [string, unknown])[];
  readonly ent?: readonly (readonly [string, string])[];
  readonly seed?: string;
}

/** Deterministic UUID-v4-shaped id of an entity-graph incident, from the result that opened it (replay gives the same id). */
function incidentUuid(seed: string): string {
  const h = fnv1a64(seed) + fnv1a64(`${seed}\u0000`);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${'89ab'[Number.parseInt(h[16] as string, 16) & 3]}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

function levelRank(level: string | undefined): number {
  return level === undefined ? -1 : (LEVELS as readonly string[]).indexOf(level);
}

function emptyIncident(id: string, now: number, groupBy: readonly (readonly [string, unknown])[]): Incident {
  return { id, first_seen: now, last_seen: now, last_emitted: now, emitted_count: 0, opened: false, dirty: false, group_by: groupBy, entities: {}, rule_counts: {}, result_count: 0, refs: [], results: [] };
}

function pairKey(selector: string, value: string): string {
  return `${selector}\u0000${value}`;
}

/** The incident store of §9.6, both grouping modes; the entity index and counters are rebuilt on restore. */
export class IncidentStore {
  readonly incidents = new Map<string, Incident>();
  /** entity_graph: `(selector, value)` → incident id. */
  private readonly index = new Map<string, string>();
  private readonly cardinality = new Map<string, number>();

  /**
   * Reads the store only: what assigning the result changes, or undefined when the caps leave it
   * unassigned without touching anything. `stripped` makes the event-stripped form kept in `include:
   * results` mode; `seed` names the result (entity-graph ids).
   */
  decide(config: GroupConfig, result: AlertResult, stripped: () => AlertResult, seed: string): GroupDecision | undefined {
    const d: Mutable<GroupDecision> = { rule: ruleOf(result) };
    if (typeof result['level'] === 'string') d.level = result['level'].toLowerCase();
    if (config.include === 'results') d.res = stripped();
    if (config.mode === 'entity_graph') {
      const ent: [string, string][] = [];
      for (const sel of config.entities) {
        const v = resolveSelector(sel, result);
        if (v !== undefined) ent.push([sel.text, valueText(v)]);
      }
      d.ent = ent;
      d.seed = seed;
      return d;
    }
    // The id hashes `\u001f<selector>=<value>` per selector, absent as `null`.
    const h = FNV.reset();
    for (const sel of config.by) {
      const v = resolveSelector(sel, result);
      h.add('\u001f').add(sel.text).add('=').add(v === undefined ? 'null' : valueText(v));
    }
    d.id = h.hex();
    if (this.incidents.has(d.id)) return d;
    if (this.incidents.size >= config.maxOpenIncidents) return undefined;
    d.pairs = config.by.map((sel) => [sel.text, resolveSelector(sel, result) ?? null]);
    return d;
  }

  /** Applies a decision at `now` (live and at replay): the incident id, or undefined when the caps left the result unassigned. */
  apply(config: GroupConfig, d: GroupDecision, now: number, overmerge: (guard: Overmerge) => void): string | undefined {
    if (d.ent !== undefined) return this.applyEntities(config, d, d.ent, now, overmerge);
    const id = d.id ?? '';
    let incident = this.incidents.get(id);
    if (incident === undefined) {
      incident = emptyIncident(id, now, d.pairs ?? []);
      this.incidents.set(id, incident);
    }
    absorb(config, incident, d, now);
    return id;
  }

  private applyEntities(config: GroupConfig, d: GroupDecision, ent: readonly (readonly [string, string])[], now: number, overmerge: (guard: Overmerge) => void): string | undefined {
    const kept: (readonly [string, string])[] = [];
    for (const pair of ent) {
      const [sel, text] = pair;
      if (config.stopValues.has(text)) {
        overmerge('stop_value');
        continue;
      }
      const pk = pairKey(sel, text);
      const n = (this.cardinality.get(pk) ?? 0) + 1;
      this.cardinality.set(pk, n);
      if (n > config.maxValueCardinality) {
        overmerge('cardinality_ceiling');
        continue;
      }
      kept.push(pair);
    }
    const touched: string[] = [];
    for (const [s, v] of kept) {
      const id = this.index.get(pairKey(s, v));
      if (id !== undefined && !touched.includes(id)) touched.push(id);
    }
    let survivor: Incident;
    if (touched.length === 0) {
      if (this.incidents.size >= config.maxOpenIncidents) return undefined;
      survivor = emptyIncident(incidentUuid(d.seed ?? ''), now, []);
      this.incidents.set(survivor.id, survivor);
    } else {
      survivor = this.incidents.get(touched[0] as string) as Incident;
      for (const id of touched.slice(1)) this.merge(config, survivor, this.incidents.get(id) as Incident);
    }
    for (const [s, v] of kept) {
      const set = (survivor.entities[s] ??= []);
      if (!set.includes(v) && set.length < config.maxEntitiesPerIncident) {
        set.push(v);
        set.sort();
      }
      this.index.set(pairKey(s, v), survivor.id);
    }
    absorb(config, survivor, d, now);
    return survivor.id;
  }

  private merge(config: GroupConfig, into: Incident, from: Incident): void {
    into.first_seen = Math.min(into.first_seen, from.first_seen);
    into.last_seen = Math.max(into.last_seen, from.last_seen);
    into.result_count += from.result_count;
    into.dirty = true;
    if (levelRank(from.max_level) > levelRank(into.max_level) && from.max_level !== undefined) into.max_level = from.max_level;
    for (const [rule, n] of Object.entries(from.rule_counts)) into.rule_counts[rule] = (into.rule_counts[rule] ?? 0) + n;
    for (const [s, values] of Object.entries(from.entities)) into.entities[s] = [...new Set([...(into.entities[s] ?? []), ...values])].sort();
    into.refs = [...into.refs, ...from.refs].slice(0, config.maxResultsPerIncident);
    into.results = [...into.results, ...from.results].slice(0, config.maxResultsPerIncident);
    for (const [k, id] of this.index) if (id === from.id) this.index.set(k, into.id);
    this.incidents.delete(from.id);
  }

  /** The tick table of §9.6, per incident in store order. */
  tick(config: GroupConfig, now: number): IncidentEmission[] {
    const out: IncidentEmission[] = [];
    for (const inc of [...this.incidents.values()]) {
      if (!inc.opened) {
        if (now - inc.first_seen < config.groupWait) continue;
        inc.opened = true;
        inc.dirty = false;
        inc.last_emitted = now;
        inc.emitted_count = inc.result_count;
        out.push({ id: inc.id, trigger: 'group_wait', record: incidentRecord(inc, 'open', 'group_wait', config.include) });
      } else if (now - inc.last_seen >= config.resolveTimeout) {
        this.remove(inc);
        out.push({ id: inc.id, trigger: 'resolved', record: incidentRecord(inc, 'resolved', 'resolved', config.include) });
      } else if (inc.dirty && now - inc.last_emitted >= config.groupInterval) {
        inc.dirty = false;
        inc.last_emitted = now;
        inc.emitted_count = inc.result_count;
        out.push({ id: inc.id, trigger: 'group_interval', record: incidentRecord(inc, 'open', 'group_interval', config.include) });
      } else if (config.repeatInterval > 0 && now - inc.last_emitted >= config.repeatInterval) {
        inc.last_emitted = now;
        out.push({ id: inc.id, trigger: 'repeat', record: incidentRecord(inc, 'open', 'repeat', config.include) });
      }
    }
    return out;
  }

  private remove(inc: Incident): void {
    this.incidents.delete(inc.id);
    for (const [s, values] of Object.entries(inc.entities)) {
      for (const v of values) {
        const k = pairKey(s, v);
        if (this.index.get(k) === inc.id) this.index.delete(k);
        this.cardinality.delete(k);
      }
    }
  }

  /** Replaces the store (restore); the entity index is rebuilt from the incidents' entity sets. */
  restore(incidents: readonly Incident[]): void {
    this.incidents.clear();
    this.index.clear();
    this.cardinality.clear();
    for (const inc of incidents) {
      this.incidents.set(inc.id, inc);
      for (const [s, values] of Object.entries(inc.entities)) for (const v of values) this.index.set(pairKey(s, v), inc.id);
    }
  }
}

/** One frozen ref per (rule, level): incidents hold up to `max_results_per_incident` refs each, mostly alike. */
const REFS = new InternTable<IncidentRef>();

/** The last ref handed out: results of a batch (and a replayed journal) come in runs of one rule. */
let lastRef: IncidentRef | undefined;

function refOf(rule: string, level: string | undefined): IncidentRef {
  if (lastRef !== undefined && lastRef.rule === rule && lastRef.level === level) return lastRef;
  return (lastRef = REFS.get(`${rule}\u0000${level ?? ''}`, () => Object.freeze(level === undefined ? { rule } : { rule, level })));
}

function absorb(config: GroupConfig, inc: Incident, d: GroupDecision, now: number): void {
  inc.last_seen = now;
  inc.dirty = true;
  inc.result_count++;
  const { rule, level } = d;
  if (level !== undefined && level !== inc.max_level && levelRank(level) > levelRank(inc.max_level)) inc.max_level = level;
  inc.rule_counts[rule] = (inc.rule_counts[rule] ?? 0) + 1;
  if (config.include === 'refs') {
    if (inc.refs.length < config.maxResultsPerIncident) inc.refs.push(refOf(rule, level));
  } else if (inc.results.length < config.maxResultsPerIncident && d.res !== undefined) inc.results.push(d.res);
}

function sortedCounts(counts: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(counts).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** The IncidentResult wire shape of §9.6 (`trigger: "snapshot"` plus the snapshot keys on API reads). */
export function incidentRecord(inc: Incident, state: 'open' | 'resolved', trigger: IncidentTrigger | 'snapshot', include?: 'refs' | 'results'): AlertResult {
  const snapshot = trigger === 'snapshot';
  const sampleMode = inc.refs.length > 0 && inc.results.length > 0 ? 'mixed' : inc.refs.length > 0 ? 'refs' : inc.results.length > 0 ? 'results' : 'none';
  return {
    incident_id: inc.id,
    state,
    trigger,
    first_seen: inc.first_seen,
    last_seen: inc.last_seen,
    ...(inc.max_level !== undefined ? { max_level: inc.max_level } : {}),
    result_count: inc.result_count,
    rule_counts: sortedCounts(inc.rule_counts),
    ...(inc.group_by.length > 0 ? { group_by: Object.fromEntries(inc.group_by) } : {}),
    ...(Object.keys(inc.entities).length > 0 ? { entities: inc.entities } : {}),
    ...(include === 'refs' || inc.refs.length > 0 ? { refs: inc.refs } : {}),
    ...(include === 'results' || inc.results.length > 0 ? { results: inc.results } : {}),
    ...(snapshot ? { sample_mode: sampleMode, bundle_ready: inc.opened } : {}),
  };
}
