import { isDefinitionsEvent } from './definitions.js';
import { currentDefinitions, DEFINITIONS_KIND } from './journaled-kind.js';
import type { AnyJournaledKind, KindRegistry } from './journaled-kind.js';
import type { DefinitionHashes, JournalRecord } from './records.js';
import { replayInSlices } from './replay-slices.js';
import type { ReplaySliceOptions } from './replay-slices.js';
import type { LoadedSnapshot } from './snapshot-tables.js';
import { StateCorruptionError } from './state-errors.js';
import type { RecoverMode, StateStore } from './state-store.js';

export interface RecoverOptions extends ReplaySliceOptions {
  /** `--state-recover`: `fail` (default) stops at an unfit journal record, `skip` passes it. */
  readonly mode?: RecoverMode;
}

export interface Recovered {
  /** The journal sequence the restored states include. */
  readonly seq: number;
  readonly snapshotSeq: number;
  readonly snapshotAt: number | undefined;
  /** Newer snapshots passed over as torn or unreadable (newest first); recovery fell back past them. */
  readonly unreadableSnapshots: readonly number[];
  /** Records a kind applied (not those it dropped as belonging to a definition no longer loaded). */
  readonly replayed: number;
  /** Journal records skipped under `--state-recover skip` (unreadable, or not fitting their kind). */
  readonly skipped: readonly number[];
  /** Snapshot entries a codec could not rebuild (skipped and counted, STYLE rule 12). */
  readonly undecodable: number;
  /** Snapshot chunks of kinds not registered; their entries are ignored. */
  readonly unknownSnapshotKinds: readonly string[];
  /** Definition hashes in force at the end of the journal. */
  readonly definitions: DefinitionHashes;
  /** True when the kinds run other hashes than those in force: journal a `$definitions` record. */
  readonly definitionsChanged: boolean;
}

/**
 * Start-up, for every registered kind: the newest usable snapshot's states (a torn one is passed over
 * by the store), then the journal after it in slices (`sliceSize`, `onProgress`) so the process keeps
 * serving HTTP meanwhile. `$definitions` records reach every kind; a record that fails its kind's
 * event check, does not fit its host, or has no registered kind stops start-up with the record's
 * sequence named (`fail`) or is skipped (`skip`). Effects of replayed transitions are discarded:
 * their results are already in the outbox, committed with the records that produced them.
 */
export async function recover(store: StateStore, registry: KindRegistry, options: RecoverOptions = {}): Promise<Recovered> {
  const mode = options.mode ?? 'fail';
  const base = store.loadSnapshotBase(mode);
  let inForce: DefinitionHashes = base.snapshot?.header.definitions ?? {};
  for (const k of registry.values()) k.definitionsInForce?.(inForce);
  const restored = restoreSnapshot(registry, base.snapshot);

  const skipped: number[] = [];
  const unfit = (seq: number, why: string): void => {
    if (mode === 'fail') {
      throw new StateCorruptionError('journal_record_unreadable', seq, `journal record ${seq} ${why} (start with --state-recover skip to skip it)`);
    }
    skipped.push(seq);
  };
  let replayed = 0;
  // One-entry cache: records of one kind come in runs.
  let lastName: string | undefined;
  let last: AnyJournaledKind | undefined;
  const visit = (r: JournalRecord): void => {
    if (r.kind !== lastName) {
      lastName = r.kind;
      last = registry.get(r.kind);
    }
    const kind = last;
    if (kind === undefined) {
      if (r.kind !== DEFINITIONS_KIND) return unfit(r.seq, `has an unknown kind '${r.kind}'`);
      if (!isDefinitionsEvent(r.event)) return unfit(r.seq, 'is a malformed $definitions record');
      inForce = r.event.hashes;
      for (const k of registry.values()) k.definitionsInForce?.(inForce);
      return;
    }
    if (!kind.isEvent(r.event)) return unfit(r.seq, kind.malformed);
    const outcome = kind.replay(r.key, r.event);
    if (outcome === 'applied') replayed++;
    else if (outcome !== 'dropped') unfit(r.seq, outcome.unfit);
  };
  const stats = await replayInSlices(store, base.seq, visit, mode, options);
  for (const k of registry.values()) k.recovered?.();
  return {
    seq: Math.max(stats.lastSeq, base.seq),
    snapshotSeq: base.seq,
    snapshotAt: base.snapshot?.header.at,
    unreadableSnapshots: base.unreadable,
    replayed,
    skipped: [...stats.skipped, ...skipped].sort((a, b) => a - b),
    undecodable: restored.undecodable,
    unknownSnapshotKinds: restored.unknownKinds,
    definitions: inForce,
    definitionsChanged: !sameHashes(inForce, currentDefinitions(registry)),
  };
}

interface Restored {
  readonly undecodable: number;
  readonly unknownKinds: readonly string[];
}

/** Decodes every chunk through its kind's codec and hands each kind its states (none when absent). */
function restoreSnapshot(registry: KindRegistry, snap: LoadedSnapshot | undefined): Restored {
  const states = new Map<string, unknown[]>([...registry.keys()].map((k) => [k, []]));
  const unknown = new Set<string>();
  let undecodable = 0;
  for (const chunk of snap?.chunks ?? []) {
    const kind = registry.get(chunk.kind);
    const into = states.get(chunk.kind);
    const version = snap?.header.kinds[chunk.kind]?.version;
    if (kind === undefined || into === undefined || version === undefined) {
      unknown.add(chunk.kind);
      continue;
    }
    for (const [, encoded] of chunk.entries) {
      const s = kind.codec.decode(encoded, version);
      if (s !== undefined) into.push(s);
      else {
        undecodable++;
        kind.undecodable?.(encoded);
      }
    }
  }
  for (const [name, kind] of registry) kind.restore(states.get(name) ?? []);
  return { undecodable, unknownKinds: [...unknown].sort() };
}

function sameHashes(a: DefinitionHashes, b: DefinitionHashes): boolean {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => a[k] === b[k]);
}

/**
 * Snapshots every registered kind's live states as of the store's last journal sequence, with the
 * definition hashes the kinds run now. Only between batches (no uncommitted journal records).
 */
export function snapshotKinds(store: StateStore, registry: KindRegistry, at: number): Promise<boolean> {
  const kinds = [...registry.values()].map((k) => ({ kind: k.kind, version: k.codec.version, entries: encodeStates(k) }));
  return store.writeSnapshot({ seq: store.lastSeq, at, kinds, definitions: currentDefinitions(registry) });
}

function* encodeStates(kind: AnyJournaledKind): Iterable<readonly [string, unknown]> {
  for (const [key, state] of kind.states()) yield [key, kind.codec.encode(state)];
}
