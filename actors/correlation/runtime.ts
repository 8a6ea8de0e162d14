import type {
  CorrelationGroupSnapshot,
  CorrelationResult,
  CorrelationSummary,
} from '../../protocol/index.js';
import type { CompiledCorrelation, FieldReader, GroupId, KeyPart, ParentLink } from '../../sigma/index.js';
import {
  compareGroupIds,
  createFieldReader,
  DEFAULT_TIMESTAMP_FIELDS,
  encodeGroupKey,
  extractEventTime,
  groupIdOf,
  MAX_CHAIN_DEPTH,
  numericValue,
  renderGroupKey,
  renderScalar,
} from '../../sigma/index.js';
import { actorKey } from './actor-key.js';
import { latestOf } from './entries.js';
import type { CorrelationEvent, HitEvent, HitValue, KeptEvent } from './events.js';
import { snapshotGroup, summarize } from './introspect.js';
import type { GroupTransition } from './reducer.js';
import { expiresBy, transition } from './reducer.js';
import { buildResult, eventIdOf } from './result.js';
import type { GroupState } from './state.js';
import { initial, partsOf } from './state.js';

const DEFAULT_MAX_STATE_ENTRIES = 100_000;

/** Something the daemon should log (and count); the runtime itself never logs. */
export type CorrelationNotice =
  | { readonly kind: 'state_cap_evicted'; readonly evicted: number; readonly cap: number }
  | { readonly kind: 'chain_depth_exceeded'; readonly correlation: string; readonly depth: number };

export interface CorrelationRuntimeOptions {
  /** Full timestamp field list (see `buildTimestampFields`); defaults to the standard fields. */
  readonly timestampFields?: readonly string[];
  /** No parseable timestamp: use the caller's clock (`wallclock`, default) or leave correlations alone. */
  readonly timestampFallback?: 'wallclock' | 'skip';
  /** Live groups across all correlations; reaching it evicts by time, then the stalest down to 90 %. */
  readonly maxStateEntries?: number;
  readonly readField?: FieldReader;
  readonly onNotice?: (notice: CorrelationNotice) => void;
  /** Sees every group event before it is applied (the journal hook); `key` is the actor key. */
  readonly record?: (key: string, event: CorrelationEvent) => void;
  /**
   * Cluster mode: whether this runtime keeps the group a detection hit lands in (its partition's).
   * A refused hit changes nothing; hits of chained correlations stay with the group that fired them.
   */
  readonly owns?: (def: CompiledCorrelation, id: GroupId) => boolean;
}

/** A matched detection rule as the engine reports it. */
export interface MatchedRule {
  readonly id?: string;
  readonly name?: string;
}

export interface GroupFilter {
  /** Correlation id, name or title (exact). */
  readonly id?: string;
  /** Substring of the rendered group key. */
  readonly group?: string;
}

const NO_RESULTS: readonly CorrelationResult[] = Object.freeze([]);

function lowestBit(mask: number): number {
  return 31 - Math.clz32(mask & -mask);
}

interface Aged {
  readonly g: GroupState;
  readonly seen: number;
}

/** When a group last did something: its newest entry or its last alert (-1 when neither). */
function lastSeen(g: GroupState): number {
  const latest = latestOf(g.entries);
  return latest !== undefined ? Math.max(latest, g.lastAlert) : g.lastAlert;
}

/** Stalest first: oldest last-seen time, then correlation index, then group key (a total order). */
function compareStaleness(a: Aged, b: Aged): number {
  if (a.seen !== b.seen) return a.seen - b.seen;
  if (a.g.def.index !== b.g.def.index) return a.g.def.index - b.g.def.index;
  return compareGroupIds(a.g.id, b.g.id);
}

/**
 * All correlation groups of a rule set, driven by detection matches. Built on the pure group reducer:
 * the only mutable state is the map of current group records, time comes in as arguments, and results
 * come out in a deterministic order (correlations by index, each result followed by the results it
 * causes up its chain).
 */
export class CorrelationRuntime {
  private readonly defs: readonly CompiledCorrelation[];
  private readonly groups: Map<GroupId, GroupState>[];
  /** Rule id or name → the correlations it feeds and its bit there. */
  private readonly consumers = new Map<string, ParentLink[]>();
  private readonly pendingMask: Int32Array;
  private readonly touched: number[] = [];
  private readonly fields: readonly string[];
  private readonly fallback: 'wallclock' | 'skip';
  private readonly cap: number;
  private readonly read: FieldReader;
  private readonly onNotice: ((n: CorrelationNotice) => void) | undefined;
  private readonly record: ((key: string, e: CorrelationEvent) => void) | undefined;
  private readonly owns: ((def: CompiledCorrelation, id: GroupId) => boolean) | undefined;
  private live = 0;
  /** The stream's time: the newest event time a hit or tick carried (epoch ms); -1 before any. */
  private time = -1;

  constructor(defs: readonly CompiledCorrelation[], options: CorrelationRuntimeOptions = {}) {
    this.defs = defs;
    this.groups = defs.map(() => new Map());
    this.pendingMask = new Int32Array(defs.length);
    this.fields = options.timestampFields ?? DEFAULT_TIMESTAMP_FIELDS;
    this.fallback = options.timestampFallback ?? 'wallclock';
    this.cap = Math.max(1, options.maxStateEntries ?? DEFAULT_MAX_STATE_ENTRIES);
    this.read = options.readField ?? createFieldReader();
    this.onNotice = options.onNotice;
    this.record = options.record;
    this.owns = options.owns;
    for (const def of defs) {
      def.refs.forEach((r, bit) => {
        if (r.target.kind !== 'detection') return;
        for (const k of new Set([r.target.id, r.target.name])) {
          if (k === undefined) continue;
          const list = this.consumers.get(k) ?? [];
          list.push({ index: def.index, bit });
          this.consumers.set(k, list);
        }
      });
    }
  }

  /** The loaded correlations, in index order. */
  get definitions(): readonly CompiledCorrelation[] {
    return this.defs;
  }

  /**
   * The stream's time. A group's window ends there, not at its own newest event: an event older than
   * the newest one before it by more than a window is late, wherever ticks or batches fell between.
   */
  get streamTime(): number {
    return this.time;
  }

  /** Moves the stream's time on to `time` (a restored frontier, the runtime a reload replaces). */
  advanceTo(time: number): void {
    if (time > this.time) this.time = time;
  }

  /** Moves the stream's time on past a journaled event, whether or not its group is still loaded. */
  witness(event: CorrelationEvent): void {
    if (event.kind === 'hit') this.advanceTo(Math.max(event.at, event.now ?? -1));
    else if (event.kind === 'tick') this.advanceTo(event.now);
  }

  /** Live groups across all correlations (`svc_correlation_state_entries`). */
  get stateEntries(): number {
    return this.live;
  }

  /**
   * Feed one event and the detection rules it matched. `nowMs` is the caller's clock, used only when
   * the event has no usable timestamp and the fallback is `wallclock`.
   */
  onEvent(matched: readonly MatchedRule[], event: unknown, nowMs: number): readonly CorrelationResult[] {
    const touched = this.touched;
    for (let m = 0; m < matched.length; m++) {
      const rule = matched[m] as MatchedRule;
      const links = (rule.id !== undefined ? this.consumers.get(rule.id) : undefined) ??
        (rule.name !== undefined ? this.consumers.get(rule.name) : undefined);
      if (links === undefined) continue;
      for (let i = 0; i < links.length; i++) {
        const link = links[i] as ParentLink;
        if (this.pendingMask[link.index] === 0) touched.push(link.index);
        this.pendingMask[link.index] = (this.pendingMask[link.index] as number) | (1 << link.bit);
      }
    }
    if (touched.length === 0) return NO_RESULTS;
    // Correlations in index order, each with the rules this event matched (one hit per correlation).
    touched.sort((a, b) => a - b);
    const indexes = touched.slice();
    const masks: number[] = [];
    for (const i of indexes) {
      masks.push(this.pendingMask[i] as number);
      this.pendingMask[i] = 0;
    }
    touched.length = 0;

    const parsed = extractEventTime(event, this.fields, this.read);
    if (parsed === undefined && this.fallback === 'skip') return NO_RESULTS;
    const at = parsed ?? Math.max(0, Math.floor(nowMs));
    this.advanceTo(at);
    this.enforceCap(this.time);
    const results: CorrelationResult[] = [];
    for (let k = 0; k < indexes.length; k++) {
      const def = this.defs[indexes[k] as number] as CompiledCorrelation;
      this.hit(def, masks[k] as number, event, at, false, 1, results);
    }
    return results.length === 0 ? NO_RESULTS : results;
  }

  /**
   * Advance every group's time to `now` (event time): trims windows, drops groups that expired. Each
   * group whose state changes journals one tick, so call it sparingly (the state cap also expires).
   */
  tick(now: number): void {
    this.advanceTo(now);
    const e: CorrelationEvent = { kind: 'tick', now };
    for (const map of this.groups) {
      for (const [k, g] of map) {
        const tr = transition(g, e);
        if (tr.state === g) continue;
        this.record?.(actorKey(g.def, partsOf(g)), e);
        if (tr.state.phase === 'expired') {
          map.delete(k);
          this.live--;
        } else map.set(k, tr.state);
      }
    }
  }

  /** Every live group, in no particular order (the codec sorts). */
  snapshot(): readonly GroupState[] {
    return this.groups.flatMap((m) => [...m.values()]);
  }

  /** Replace all state with decoded groups (which must belong to this runtime's definitions). */
  restore(groups: readonly GroupState[]): void {
    for (const m of this.groups) m.clear();
    this.live = 0;
    for (const g of groups) {
      const map = this.groups[g.def.index];
      if (map === undefined || this.defs[g.def.index] !== g.def) continue;
      if (!map.has(g.id)) this.live++;
      map.set(g.id, g);
    }
  }

  /**
   * Apply one journaled event to the group `parts` of `def` (replay after restoring a snapshot); the
   * caller resolves which loaded definition a record belongs to. False when `def` is not one of this
   * runtime's or `parts` does not fit its group-by.
   */
  replay(def: CompiledCorrelation, parts: readonly KeyPart[], event: CorrelationEvent): boolean {
    this.witness(event);
    if (this.defs[def.index] !== def || parts.length !== def.groupBy.length) return false;
    const map = this.groups[def.index] as Map<GroupId, GroupState>;
    const id = groupIdOf(parts);
    const before = map.get(id);
    this.place(map, id, before, transition(before ?? initial(def, id), event).state);
    return true;
  }

  /** Keeps a group's next state, or lets it go when it ended (a late hit may end a group it expired). */
  private place(map: Map<GroupId, GroupState>, id: GroupId, before: GroupState | undefined, next: GroupState): void {
    if (next.phase === 'expired' || next.phase === 'evicted') {
      if (before !== undefined) this.live--;
      map.delete(id);
    } else {
      if (before === undefined) this.live++;
      map.set(id, next);
    }
  }

  /** Forget every group of the correlations `drop` selects (a replayed reload); returns how many went. */
  dropGroups(drop: (def: CompiledCorrelation) => boolean): number {
    let dropped = 0;
    for (const def of this.defs) {
      const map = this.groups[def.index] as Map<GroupId, GroupState>;
      if (map.size === 0 || !drop(def)) continue;
      dropped += map.size;
      this.live -= map.size;
      map.clear();
    }
    return dropped;
  }

  /** The loaded definition with this hash (for `decode`). */
  definitionByHash(hash: string): CompiledCorrelation | undefined {
    return this.defs.find((d) => d.hash === hash);
  }

  summaries(): CorrelationSummary[] {
    return this.defs.map((d) => summarize(d, this.groups[d.index]?.size ?? 0));
  }

  /** Group snapshots sorted by correlation index, then rendered key. */
  groupSnapshots(filter: GroupFilter = {}): CorrelationGroupSnapshot[] {
    const out: CorrelationGroupSnapshot[] = [];
    for (const def of this.defs) {
      const r = def.rule;
      if (filter.id !== undefined && filter.id !== r.id && filter.id !== r.name && filter.id !== r.title) continue;
      const rows = [...(this.groups[def.index]?.values() ?? [])]
        .map((g) => ({ g, display: renderGroupKey(def.groupBy, partsOf(g)) }))
        .filter((x) => filter.group === undefined || x.display.includes(filter.group))
        .sort((a, b) => (a.display < b.display ? -1 : a.display > b.display ? 1 : 0));
      for (const { g } of rows) out.push(snapshotGroup(g));
    }
    return out;
  }

  private apply(g: GroupState, e: CorrelationEvent): GroupTransition {
    this.record?.(actorKey(g.def, partsOf(g)), e);
    return transition(g, e);
  }

  private hit(
    def: CompiledCorrelation,
    mask: number,
    source: unknown,
    at: number,
    chained: boolean,
    depth: number,
    results: CorrelationResult[],
  ): void {
    const bit = lowestBit(mask);
    const id = this.groupIdFor(def, bit, source);
    if (!chained && this.owns !== undefined && !this.owns(def, id)) return;
    const value = this.valueOf(def, bit, source);
    const kept = chained ? undefined : this.keptOf(def, source, at);
    const hitEvent: HitEvent = {
      kind: 'hit',
      at,
      ...(this.time > at ? { now: this.time } : {}),
      rules: mask,
      ...(value !== undefined ? { value } : {}),
      ...(kept !== undefined ? { kept } : {}),
    };
    const map = this.groups[def.index] as Map<GroupId, GroupState>;
    const before = map.get(id);
    const tr = this.apply(before ?? initial(def, id), hitEvent);
    this.place(map, id, before, tr.state);
    for (const effect of tr.effects) {
      const result = buildResult(def, partsOf(tr.state), effect);
      if (def.emits) results.push(result);
      if (def.parents.length === 0) continue;
      if (depth >= MAX_CHAIN_DEPTH) {
        const correlation = def.rule.id ?? def.rule.name ?? def.rule.title;
        this.onNotice?.({ kind: 'chain_depth_exceeded', correlation, depth });
        continue;
      }
      const fields = Object.fromEntries(result.group_key);
      for (const p of def.parents) {
        this.hit(this.defs[p.index] as CompiledCorrelation, 1 << p.bit, fields, effect.at, true, depth + 1, results);
      }
    }
  }

  /** The group of an event; one group-by field needs no key string (the common, hot case). */
  private groupIdFor(def: CompiledCorrelation, bit: number, source: unknown): GroupId {
    const fields = def.groupFields;
    if (fields.length === 1) return renderScalar(this.read(source, (fields[0] as readonly string[])[bit] as string));
    return encodeGroupKey(fields.map((f) => renderScalar(this.read(source, f[bit] as string))));
  }

  private valueOf(def: CompiledCorrelation, bit: number, source: unknown): HitValue | undefined {
    const fields = def.valueFields;
    if (fields.length === 0) return undefined;
    if (def.aggregate !== 'distinct') {
      return numericValue(this.read(source, (fields[0] as readonly string[])[bit] as string)) ?? null;
    }
    const parts = fields.map((f) => renderScalar(this.read(source, f[bit] as string)));
    if (parts.some((p) => p === null)) return null;
    return parts.length === 1 ? (parts[0] as string) : encodeGroupKey(parts);
  }

  private keptOf(def: CompiledCorrelation, source: unknown, at: number): KeptEvent | undefined {
    if (def.eventMode === 'none') return undefined;
    if (def.eventMode === 'full') return { ts: at, event: source };
    const id = eventIdOf(source);
    return id !== undefined ? { ts: at, id } : { ts: at };
  }

  /** daemon-semantics §19: before each event, at the cap, expire by time, then drop the stalest to 90 %. */
  private enforceCap(at: number): void {
    if (this.live < this.cap) return;
    // Only groups that expire by `at` are ticked: the others keep their state (and journal nothing).
    for (const map of this.groups) {
      for (const [id, g] of map) {
        if (!expiresBy(g, at)) continue;
        this.apply(g, { kind: 'tick', now: at });
        map.delete(id);
        this.live--;
      }
    }
    if (this.live < this.cap) return;
    const target = Math.floor(this.cap * 0.9);
    const all: Aged[] = [];
    for (const map of this.groups) for (const g of map.values()) all.push({ g, seen: lastSeen(g) });
    all.sort(compareStaleness);
    const evict = all.length - target;
    for (let i = 0; i < evict; i++) {
      const { g } = all[i] as Aged;
      this.apply(g, { kind: 'evicted' });
      this.groups[g.def.index]?.delete(g.id);
      this.live--;
    }
    this.onNotice?.({ kind: 'state_cap_evicted', evicted: evict, cap: this.cap });
  }
}
