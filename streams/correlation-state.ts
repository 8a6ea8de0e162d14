import Type from 'typebox';
import {
  compareGroups,
  CORRELATION_CODEC_VERSION,
  CorrelationEventSchema,
  CorrelationRuntime,
  correlationName,
  decode,
  decodeGroup,
  definitionGroupOf,
  definitionHashes,
  encode,
  encodeGroup,
  EncodedGroupSchema,
} from '../actors/index.js';
import type { CorrelationEvent, CorrelationRuntimeOptions, GroupState } from '../actors/index.js';
import { decodeGroupKey, encodeGroupKey } from '../sigma/index.js';
import type { CompiledCorrelation } from '../sigma/index.js';
import { DEFINITIONS_KIND } from '../state/index.js';
import type { AnyJournaledKind, DefinitionHashes, JournaledKind, JournalDraft, ReplayOutcome, SnapshotCodec } from '../state/index.js';
import { ForeignGroups } from './foreign-groups.js';
import type { DroppedCorrelationState } from './foreign-groups.js';
import { compileOnUse } from '../protocol/index.js';

/** Journal `kind` of correlation group records (`corr:<correlation>:<group key>` actors). */
export const CORRELATION_KIND = 'corr';
/**
 * Journal record and snapshot kind of the correlation tick frontier (`{now}`), so a restore resumes
 * ticking in step: ticks that change no group journal nothing of their own.
 */
export const CORRELATION_TICK_KIND = 'corr-tick';

const isCorrelationEvent = compileOnUse(CorrelationEventSchema);
const isEncodedGroup = compileOnUse(EncodedGroupSchema);

function groupOfKey(actorKey: string): string {
  const second = actorKey.indexOf(':', CORRELATION_KIND.length + 1);
  return second === -1 ? actorKey : actorKey.slice(0, second);
}

/** A `corr-tick` record's event: the correlation groups were ticked to event time `now`. */
const CorrelationTickSchema = Type.Object({ now: Type.Number() });
type CorrelationTick = Type.Static<typeof CorrelationTickSchema>;
const isCorrelationTick = compileOnUse(CorrelationTickSchema);

/** The `corr-tick` snapshot entry: the last tick and the stream's time (see `CorrelationRuntime.streamTime`). */
const TickStateSchema = Type.Object({ tickedAt: Type.Number(), time: Type.Number() }, { additionalProperties: false });
type TickState = Type.Static<typeof TickStateSchema>;
const isTickState = compileOnUse(TickStateSchema);

/** Where the tick frontier lives between batches (the daemon's `JournalBuffer`). */
export interface TickFrontier {
  /** Event time of the newest tick the state has seen (see `TICK_EVERY_MS`); -1 before any. */
  tickedAt: number;
}

/** What a start-up left out of the stored correlation state. */
export interface CorrelationRecoveryReport {
  /** Records and snapshot entries of changed or removed correlations, left out. */
  readonly dropped: number;
  /** Groups the stored state held for correlations that changed or went since, dropped at this start. */
  readonly droppedState: readonly DroppedCorrelationState[];
}

/**
 * The correlation state's journaled kinds, registered with the state layer for the process's life:
 * `recover` restores and replays into them once, `snapshotKinds` writes them at every snapshot.
 */
export interface CorrelationKinds {
  /** `corr` (groups, hosted by the current runtime) and `corr-tick` (the frontier, hosted by `frontier`). */
  readonly kinds: readonly AnyJournaledKind[];
  /** After `recover`: what it dropped, and whose groups, against the correlations loaded then. */
  report(): CorrelationRecoveryReport;
}

const NOT_A_GROUP_EVENT = { unfit: 'is not a correlation group event' } as const;

/** Lookups a replay needs over one runtime's correlations. */
interface DefinitionIndex {
  readonly runtime: CorrelationRuntime;
  readonly byName: ReadonlyMap<string, CompiledCorrelation>;
  /** The first loaded correlation per hash, as `carryOver` picks. */
  readonly byHash: ReadonlyMap<string, CompiledCorrelation>;
}

function indexOf(runtime: CorrelationRuntime): DefinitionIndex {
  const defs = runtime.definitions;
  const byHash = new Map<string, CompiledCorrelation>();
  for (const d of [...defs].reverse()) byHash.set(d.hash, d);
  return { runtime, byName: new Map(defs.map((d) => [definitionGroupOf(d), d])), byHash };
}

/** The hash in force for a definition group, and the loaded correlation holding it (none: dropped). */
interface Resolution {
  readonly hash: string | undefined;
  readonly def: CompiledCorrelation | undefined;
}

/**
 * The `corr` kind: correlation groups, hosted by `runtime()` (the runtime in force, which enforces the
 * shared state cap and eviction order), journaled by its `record` hook. Like `carryOver`, replayed
 * state follows definition hashes: a record belongs to the loaded correlation whose hash equals the
 * one in force for its key (per the `$definitions` records), and a `$definitions` record drops the
 * groups of every hash it no longer holds, as that reload did live. Groups of correlations the
 * loaded rules cannot rebuild are tracked by key only, so the start-up can say what it drops.
 */
class CorrelationGroupsKind implements JournaledKind<CorrelationEvent, GroupState> {
  readonly kind = CORRELATION_KIND;
  readonly malformed = NOT_A_GROUP_EVENT.unfit;
  readonly codec: SnapshotCodec<GroupState>;
  private inForce: DefinitionHashes = {};
  private foreign = new ForeignGroups();
  private dropped = 0;
  /** What recovery dropped, fixed when it ends (the groups it tracked by key are let go then). */
  private final: CorrelationRecoveryReport | undefined;
  private cached: DefinitionIndex | undefined;
  /**
   * Which loaded correlation each definition group's records replay into under the hashes in force,
   * resolved once per group instead of once per record.
   */
  private readonly resolved = new Map<string, Resolution>();

  constructor(private readonly runtime: () => CorrelationRuntime) {
    this.codec = {
      version: CORRELATION_CODEC_VERSION,
      encode: encodeGroup,
      decode: (encoded, version) => (version === CORRELATION_CODEC_VERSION ? decodeGroup(encoded, (h) => this.index().byHash.get(h)) : undefined),
    };
  }

  isEvent(event: unknown): event is CorrelationEvent {
    return isCorrelationEvent.Check(event);
  }

  restore(states: readonly GroupState[]): void {
    this.runtime().restore(states);
  }

  replay(key: string, event: CorrelationEvent): ReplayOutcome {
    const { runtime } = this.index();
    const name = groupOfKey(key);
    const encodedParts = key.slice(name.length + 1);
    const parts = decodeGroupKey(encodedParts);
    if (parts === undefined) return NOT_A_GROUP_EVENT;
    const { hash, def } = this.resolve(name);
    if (def === undefined) {
      // Live, the record's event moved the stream's time for every correlation.
      runtime.witness(event);
      this.dropped++;
      if (hash !== undefined) this.foreign.note(hash, encodedParts, event.kind === 'evicted');
      return 'dropped';
    }
    return runtime.replay(def, parts, event) ? 'applied' : { unfit: `does not fit correlation '${correlationName(def)}'` };
  }

  *states(): Iterable<readonly [string, GroupState]> {
    const groups = [...this.runtime().snapshot()].sort(compareGroups);
    for (let i = 0; i < groups.length; i++) yield [`${i}`, groups[i] as GroupState];
  }

  definitions(): DefinitionHashes {
    return definitionHashes(this.runtime().definitions);
  }

  definitionsInForce(hashes: DefinitionHashes): void {
    const kept = new Set(Object.values(hashes));
    this.runtime().dropGroups((d) => !kept.has(d.hash));
    this.foreign.keepOnly(kept);
    this.inForce = hashes;
    this.resolved.clear();
  }

  undecodable(encoded: unknown): void {
    this.dropped++;
    if (isEncodedGroup.Check(encoded) && this.index().byHash.get(encoded.corr) === undefined) this.foreign.note(encoded.corr, encodeGroupKey(encoded.key), false);
  }

  recovered(): void {
    this.final = this.report();
    // The runtime recovery replayed into is swapped at the first reload: no index may keep it alive.
    this.foreign = new ForeignGroups();
    this.cached = undefined;
    this.resolved.clear();
  }

  report(): CorrelationRecoveryReport {
    return this.final ?? { dropped: this.dropped, droppedState: this.foreign.report(this.inForce, this.definitions()) };
  }

  private index(): DefinitionIndex {
    const runtime = this.runtime();
    if (this.cached?.runtime !== runtime) {
      this.cached = indexOf(runtime);
      this.resolved.clear();
    }
    return this.cached;
  }

  private resolve(name: string): Resolution {
    let r = this.resolved.get(name);
    if (r === undefined) {
      const { byHash, byName } = this.index();
      const hash = this.inForce[name];
      r = { hash, def: hash !== undefined ? byHash.get(hash) : byName.get(name) };
      this.resolved.set(name, r);
    }
    return r;
  }
}

/**
 * The `corr-tick` kind: the tick frontier and the stream's time, so a restore resumes ticking in step
 * and judges the next event late as the live runtime would have. Version 1 entries held the frontier
 * alone, which was then also the best known stream time.
 */
function tickKind(frontier: TickFrontier, runtime: () => CorrelationRuntime): JournaledKind<CorrelationTick, TickState> {
  return {
    kind: CORRELATION_TICK_KIND,
    malformed: 'is a malformed correlation tick',
    isEvent: (event): event is CorrelationTick => isCorrelationTick.Check(event),
    codec: {
      version: 2,
      encode: (state) => state,
      decode: (x, version) => (version === 1 ? (typeof x === 'number' ? { tickedAt: x, time: x } : undefined) : isTickState.Check(x) ? x : undefined),
    },
    restore(states) {
      const last = states[states.length - 1];
      frontier.tickedAt = last?.tickedAt ?? -1;
      if (last !== undefined) runtime().advanceTo(last.time);
    },
    replay(_key, event) {
      frontier.tickedAt = Math.max(frontier.tickedAt, event.now);
      runtime().advanceTo(event.now);
      return 'applied';
    },
    states: () => [['frontier', { tickedAt: frontier.tickedAt, time: runtime().streamTime }]],
  };
}

/**
 * The correlation state's entries for the state layer's registry: `recover` restores and replays into
 * `runtime()` and `frontier` once, `snapshotKinds` writes them at every snapshot. Build the runtime
 * before recovery; a reload swaps it (`carryOver`) and `runtime()` follows.
 */
export function createCorrelationKinds(runtime: () => CorrelationRuntime, frontier: TickFrontier): CorrelationKinds {
  const groups = new CorrelationGroupsKind(runtime);
  const kinds: AnyJournaledKind[] = [groups, tickKind(frontier, runtime)];
  return { kinds, report: () => groups.report() };
}

/** The `$definitions` journal record for the hashes now in force. */
export function definitionsRecord(defs: readonly CompiledCorrelation[], at: number): JournalDraft {
  return { at, kind: DEFINITIONS_KIND, key: '', event: { hashes: definitionHashes(defs) } };
}

/**
 * Reload: a runtime over the new definitions that keeps the groups of correlations whose
 * definition hash did not change (matched by hash, so renamed-but-identical ones keep theirs too),
 * and says whose groups it dropped.
 */
export function carryOver(
  previous: CorrelationRuntime,
  defs: readonly CompiledCorrelation[],
  options: CorrelationRuntimeOptions,
): { runtime: CorrelationRuntime; dropped: readonly DroppedCorrelationState[] } {
  const runtime = new CorrelationRuntime(defs, options);
  runtime.advanceTo(previous.streamTime);
  const decoded = decode(encode(previous.snapshot()), (hash) => runtime.definitionByHash(hash));
  runtime.restore(decoded.groups);
  const kept = new Set(defs.map((d) => d.hash));
  const names = new Set(defs.map(definitionGroupOf));
  const counts = new Map<CompiledCorrelation, number>();
  for (const g of previous.snapshot()) if (!kept.has(g.def.hash)) counts.set(g.def, (counts.get(g.def) ?? 0) + 1);
  const dropped = [...counts].map(([def, groups]): DroppedCorrelationState => ({
    correlation: correlationName(def),
    reason: names.has(definitionGroupOf(def)) ? 'changed' : 'removed',
    groups,
  }));
  return { runtime, dropped };
}

