import Compile from 'typebox/compile';
import {
  CORRELATION_CODEC_VERSION,
  CorrelationEventSchema,
  CorrelationRuntime,
  correlationName,
  decode,
  decodeGroup,
  definitionGroupOf,
  encode,
  EncodedGroupSchema,
} from '../actors/correlation/index.js';
import type { CorrelationEvent, CorrelationRuntimeOptions, GroupState } from '../actors/correlation/index.js';
import { decodeGroupKey, encodeGroupKey } from '../sigma/correlation/index.js';
import type { CompiledCorrelation } from '../sigma/correlation/index.js';
import { DEFINITIONS_KIND, isDefinitionsEvent, replayInSlices, StateCorruptionError } from '../state/index.js';
import type { DefinitionHashes, JournalDraft, RecoverMode, ReplaySliceOptions, StateStore } from '../state/index.js';
import { ForeignGroups } from './foreign-groups.js';
import type { DroppedCorrelationState } from './foreign-groups.js';

/** Journal `kind` of correlation group records (`corr:<correlation>:<group key>` actors). */
export const CORRELATION_KIND = 'corr';
/**
 * Journal record and snapshot kind of the correlation tick frontier (`{now}`), so a restore resumes
 * ticking in step: ticks that change no group journal nothing of their own.
 */
export const CORRELATION_TICK_KIND = 'corr-tick';

const isCorrelationEvent = Compile(CorrelationEventSchema);
const isEncodedGroup = Compile(EncodedGroupSchema);

/** Compiled definition hash per definition group, for the `$definitions` journal records. */
export function correlationHashes(defs: readonly CompiledCorrelation[]): DefinitionHashes {
  const out: DefinitionHashes = {};
  for (const d of defs) out[definitionGroupOf(d)] = d.hash;
  return out;
}

function groupOfKey(actorKey: string): string {
  const second = actorKey.indexOf(':', CORRELATION_KIND.length + 1);
  return second === -1 ? actorKey : actorKey.slice(0, second);
}

export interface RecoveredCorrelations {
  readonly runtime: CorrelationRuntime;
  /** Journal sequence the restored state includes. */
  readonly seq: number;
  readonly snapshotSeq: number;
  /** Newer snapshots passed over as torn or unreadable (newest first); recovery fell back past them. */
  readonly unreadableSnapshots: readonly number[];
  readonly replayed: number;
  /** Records and snapshot entries of changed or removed correlations, left out. */
  readonly dropped: number;
  /** Groups the stored state held for correlations that changed or went since, dropped at this start. */
  readonly droppedState: readonly DroppedCorrelationState[];
  /** Journal records skipped under `--state-recover skip` (unreadable, or not fitting their kind). */
  readonly skipped: readonly number[];
  /** Event time of the newest tick the state has seen (see `TICK_EVERY_MS`). */
  readonly tickedAt: number;
  /** True when the hashes in force differ from the stored ones (journal a `$definitions` record). */
  readonly definitionsChanged: boolean;
}

/**
 * Start-up: the newest usable snapshot's groups, then the journal after it, reproducing what the
 * live daemon did. Like `carryOver`, state follows definition hashes: a record belongs to the loaded
 * correlation whose hash equals the one in force for its key (per the `$definitions` records), and a
 * `$definitions` record drops the groups of every hash it no longer holds, as that reload did live.
 * A record that does not fit its kind stops start-up (`fail`) or is skipped (`skip`).
 * The journal is read in slices (`slices`) so the process keeps serving HTTP meanwhile.
 */
export async function recoverCorrelations(
  store: StateStore,
  defs: readonly CompiledCorrelation[],
  options: CorrelationRuntimeOptions,
  mode: RecoverMode,
  slices: ReplaySliceOptions = {},
): Promise<RecoveredCorrelations> {
  // replay() bypasses the `record` hook, so the live runtime can be the one that replays.
  const runtime = new CorrelationRuntime(defs, options);
  const current = correlationHashes(defs);
  const byName = new Map(defs.map((d) => [definitionGroupOf(d), d]));
  // The first loaded correlation per hash, as `carryOver` picks (a lookup per replayed record).
  const firstByHash = new Map<string, CompiledCorrelation>();
  for (const d of [...defs].reverse()) firstByHash.set(d.hash, d);
  const byHash = (hash: string): CompiledCorrelation | undefined => firstByHash.get(hash);
  const foreign = new ForeignGroups();
  const base = store.loadSnapshotBase(mode);
  let inForce: DefinitionHashes = base.snapshot?.header.definitions ?? {};
  let dropped = 0;
  const groups: GroupState[] = [];
  let tickedAt = -1;
  for (const chunk of base.snapshot?.chunks ?? []) {
    if (chunk.kind === CORRELATION_TICK_KIND) for (const [, at] of chunk.entries) if (typeof at === 'number') tickedAt = at;
    if (chunk.kind !== CORRELATION_KIND) continue;
    for (const [, encoded] of chunk.entries) {
      const g = decodeGroup(encoded, byHash);
      if (g !== undefined) groups.push(g);
      else {
        dropped++;
        if (isEncodedGroup.Check(encoded) && byHash(encoded.corr) === undefined) foreign.note(encoded.corr, encodeGroupKey(encoded.key), false);
      }
    }
  }
  runtime.restore(groups);

  const skipped: number[] = [];
  const unfit = (seq: number, why: string): void => {
    if (mode === 'fail') {
      throw new StateCorruptionError('journal_record_unreadable', seq, `journal record ${seq} ${why} (start with --state-recover skip to skip it)`);
    }
    skipped.push(seq);
  };
  let replayed = 0;
  const stats = await replayInSlices(
    store,
    base.seq,
    (r) => {
      if (r.kind === DEFINITIONS_KIND) {
        if (!isDefinitionsEvent(r.event)) return unfit(r.seq, 'is a malformed $definitions record');
        const kept = new Set(Object.values(r.event.hashes));
        runtime.dropGroups((d) => !kept.has(d.hash));
        foreign.keepOnly(kept);
        inForce = r.event.hashes;
        return;
      }
      if (r.kind === CORRELATION_TICK_KIND) {
        const now = (r.event as { now?: unknown } | null)?.now;
        if (typeof now !== 'number') return unfit(r.seq, 'is a malformed correlation tick');
        tickedAt = Math.max(tickedAt, now);
        return;
      }
      if (r.kind !== CORRELATION_KIND) return unfit(r.seq, `has an unknown kind '${r.kind}'`);
      const name = groupOfKey(r.key);
      const parts = decodeGroupKey(r.key.slice(name.length + 1));
      if (!isCorrelationEvent.Check(r.event) || parts === undefined) return unfit(r.seq, 'is not a correlation group event');
      const hash = inForce[name];
      const def = hash !== undefined ? byHash(hash) : byName.get(name);
      if (def === undefined) {
        dropped++;
        if (hash !== undefined) foreign.note(hash, encodeGroupKey(parts), r.event.kind === 'evicted');
        return;
      }
      if (!runtime.replay(def, parts, r.event)) return unfit(r.seq, `does not fit correlation '${correlationName(def)}'`);
      replayed++;
    },
    mode,
    slices,
  );
  return {
    runtime,
    seq: Math.max(stats.lastSeq, base.seq),
    snapshotSeq: base.seq,
    unreadableSnapshots: base.unreadable,
    replayed,
    dropped,
    droppedState: foreign.report(inForce, current),
    skipped: [...stats.skipped, ...skipped].sort((a, b) => a - b),
    tickedAt,
    definitionsChanged: !sameHashes(inForce, current),
  };
}

function sameHashes(a: DefinitionHashes, b: DefinitionHashes): boolean {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => a[k] === b[k]);
}

/** The `$definitions` journal record for the hashes now in force. */
export function definitionsRecord(defs: readonly CompiledCorrelation[], at: number): JournalDraft {
  return { at, kind: DEFINITIONS_KIND, key: '', event: { hashes: correlationHashes(defs) } };
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

/** Writes a snapshot of every group as of the store's last journal sequence. */
export function snapshotCorrelations(
  store: StateStore,
  runtime: CorrelationRuntime,
  defs: readonly CompiledCorrelation[],
  tickedAt: number,
  at: number,
): Promise<boolean> {
  const encoded = encode(runtime.snapshot()).groups;
  return store.writeSnapshot({
    seq: store.lastSeq,
    at,
    kinds: [
      { kind: CORRELATION_KIND, version: CORRELATION_CODEC_VERSION, entries: encoded.map((g, i) => [`${i}`, g] as const) },
      { kind: CORRELATION_TICK_KIND, version: 1, entries: [['tickedAt', tickedAt]] },
    ],
    definitions: correlationHashes(defs),
  });
}

export type { CorrelationEvent };
