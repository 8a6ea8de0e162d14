import { applyTransition, createStateMaps, DEFINITIONS_KIND } from './actor-states.js';
import type { KindRegistry, StateMaps } from './actor-states.js';
import { decideDefinitionChange, dropChangedDefinitions, isDefinitionsEvent } from './definitions.js';
import type { DefinitionHashes, JournalRecord, SnapshotChunk } from './records.js';
import { replayInSlices } from './replay-slices.js';
import type { ReplaySliceOptions } from './replay-slices.js';
import type { LoadedSnapshot } from './snapshot-tables.js';
import { StateCorruptionError } from './state-errors.js';
import type { RecoverMode, StateStore } from './state-store.js';

export interface RecoverOptions extends ReplaySliceOptions {
  /** `--state-recover`: `fail` (default) stops at an unreadable journal record, `skip` passes it. */
  readonly mode?: RecoverMode;
}

export interface RecoverStats {
  readonly snapshotSeq: number;
  readonly snapshotAt: number | undefined;
  /** Snapshots passed over as unreadable, newest first. */
  readonly unreadableSnapshots: readonly number[];
  readonly replayed: number;
  readonly skippedRecords: readonly number[];
  /** Snapshot entries whose codec rejected them (rule 12: skipped and counted, not fatal). */
  readonly undecodableStates: number;
  /** Snapshot kinds started fresh because their stored codec version is newer than the code's. */
  readonly freshKinds: readonly string[];
  /** Kinds in the snapshot or journal that are not registered; their state is ignored. */
  readonly unknownKinds: readonly string[];
  /** Instances dropped while replaying `$definitions` records. */
  readonly droppedByDefinitions: number;
}

export interface Recovered {
  readonly states: StateMaps;
  readonly definitions: DefinitionHashes;
  /** The journal sequence the states include. */
  readonly seq: number;
  readonly stats: RecoverStats;
}

/**
 * Start-up: the newest usable snapshot, then the journal after it through the same transitions the
 * live path runs. Effects of replayed transitions are discarded: their results are already in the
 * outbox, committed with the records that produced them.
 */
export async function recover(store: StateStore, registry: KindRegistry, options: RecoverOptions = {}): Promise<Recovered> {
  const mode = options.mode ?? 'fail';
  const base = store.loadSnapshotBase(mode);
  const states = createStateMaps(registry);
  const restored = base.snapshot === undefined ? undefined : restoreSnapshot(states, registry, base.snapshot);
  const unknownKinds = new Set(restored?.unknownKinds);
  let definitions: DefinitionHashes = base.snapshot?.header.definitions ?? {};
  let droppedByDefinitions = 0;

  const visit = (r: JournalRecord): void => {
    if (r.kind === DEFINITIONS_KIND) {
      if (!isDefinitionsEvent(r.event)) return unreadable(r.seq);
      droppedByDefinitions += dropChangedDefinitions(states, registry, decideDefinitionChange(definitions, r.event.hashes));
      definitions = r.event.hashes;
      return;
    }
    const kind = registry.get(r.kind);
    if (kind === undefined) {
      unknownKinds.add(r.kind);
      return;
    }
    if (kind.isEvent !== undefined && !kind.isEvent(r.event)) return unreadable(r.seq);
    applyTransition(states, kind, r.key, r.event);
  };
  const skippedRecords: number[] = [];
  const unreadable = (seq: number): void => {
    if (mode === 'fail') throw new StateCorruptionError('journal_record_unreadable', seq, `journal record ${seq} does not fit its actor kind (start with --state-recover skip to skip it)`);
    skippedRecords.push(seq);
  };

  const replay = await replayInSlices(store, base.seq, visit, mode, options);
  skippedRecords.push(...replay.skipped);
  return {
    states,
    definitions,
    seq: Math.max(replay.lastSeq, base.seq),
    stats: {
      snapshotSeq: base.seq,
      snapshotAt: base.snapshot?.header.at,
      unreadableSnapshots: base.unreadable,
      replayed: replay.replayed,
      skippedRecords: skippedRecords.sort((a, b) => a - b),
      undecodableStates: restored?.undecodable ?? 0,
      freshKinds: restored?.freshKinds ?? [],
      unknownKinds: [...unknownKinds].sort(),
      droppedByDefinitions,
    },
  };
}

interface Restored {
  readonly undecodable: number;
  readonly freshKinds: readonly string[];
  readonly unknownKinds: readonly string[];
}

function restoreSnapshot(states: StateMaps, registry: KindRegistry, snap: LoadedSnapshot): Restored {
  let undecodable = 0;
  const fresh = new Set<string>();
  const unknown = new Set<string>();
  for (const [name, meta] of Object.entries(snap.header.kinds)) {
    const kind = registry.get(name);
    if (kind === undefined) unknown.add(name);
    else if (meta.version > kind.codec.version) fresh.add(name);
  }
  for (const chunk of snap.chunks) {
    const kind = registry.get(chunk.kind);
    const version = snap.header.kinds[chunk.kind]?.version;
    if (kind === undefined || version === undefined || fresh.has(chunk.kind)) continue;
    const byKey = states.get(chunk.kind);
    if (byKey === undefined) continue;
    undecodable += decodeChunk(byKey, chunk, (x) => kind.codec.decode(x, version));
  }
  return { undecodable, freshKinds: [...fresh].sort(), unknownKinds: [...unknown].sort() };
}

/** Returns how many entries the codec rejected. */
function decodeChunk(byKey: Map<string, unknown>, chunk: SnapshotChunk, decode: (x: unknown) => unknown): number {
  let rejected = 0;
  for (const [key, encoded] of chunk.entries) {
    try {
      byKey.set(key, decode(encoded));
    } catch {
      rejected++;
    }
  }
  return rejected;
}
