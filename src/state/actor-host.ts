import type { ActorKind } from '../actors/index.js';
import { applyTransition, DEFINITIONS_KIND } from './actor-states.js';
import type { KindRegistry, StateMaps } from './actor-states.js';
import { noCrash } from './crash-points.js';
import type { CrashHook } from './crash-points.js';
import { decideDefinitionChange, dropChangedDefinitions, hasDefinitionChange } from './definitions.js';
import type { DefinitionChange, DefinitionsEvent } from './definitions.js';
import type { DefinitionHashes, JournalDraft } from './records.js';
import type { Recovered } from './recover.js';
import { decideSnapshot, DEFAULT_SNAPSHOT_POLICY } from './snapshot-policy.js';
import type { SnapshotPolicy, SnapshotReason } from './snapshot-policy.js';
import type { SnapshotKindInput } from './snapshot-tables.js';
import type { CommitBatch, CommitResult, StateStore } from './state-store.js';

export interface ActorHostOptions {
  readonly store: StateStore;
  readonly registry: KindRegistry;
  readonly recovered: Recovered;
  readonly snapshotPolicy?: SnapshotPolicy;
  readonly crashHook?: CrashHook;
}

export interface DefinitionUpdate extends DefinitionChange {
  /** Instances whose state was dropped because their definition changed or went away. */
  readonly droppedStates: number;
}

/**
 * Live side of the actors: runs transitions, collects the journal records of the current batch,
 * commits them with the batch's outbox, and snapshots at batch boundaries.
 */
export class ActorHost {
  private readonly store: StateStore;
  private readonly registry: KindRegistry;
  private readonly live: StateMaps;
  private readonly policy: SnapshotPolicy;
  private readonly crash: CrashHook;
  private pending: JournalDraft[] = [];
  private hashes: DefinitionHashes;
  private snapshotSeq: number;
  private snapshotAt: number | undefined;

  constructor(options: ActorHostOptions) {
    this.store = options.store;
    this.registry = options.registry;
    this.live = options.recovered.states;
    this.hashes = options.recovered.definitions;
    this.snapshotSeq = options.recovered.stats.snapshotSeq;
    this.snapshotAt = options.recovered.stats.snapshotAt;
    this.policy = options.snapshotPolicy ?? DEFAULT_SNAPSHOT_POLICY;
    this.crash = options.crashHook ?? noCrash;
  }

  /** Applies `event` to actor `key` of `kind` now and journals it with the current batch. */
  dispatch<S, E, F>(kind: ActorKind<S, E, F>, key: string, event: E, at: number): readonly F[] {
    if (this.registry.get(kind.kind) !== kind) throw new Error(`actor kind ${kind.kind} is not registered with this host`);
    const effects = applyTransition(this.live, kind, key, event);
    this.pending.push({ at, kind: kind.kind, key, event });
    return effects;
  }

  /** Current state of one instance, if it has any. */
  state<S, E, F>(kind: ActorKind<S, E, F>, key: string): S | undefined {
    // States under a kind's name are only ever produced by that kind.
    return this.live.get(kind.kind)?.get(key) as S | undefined;
  }

  /** All live states (read-only use: counts, REST listings). */
  get states(): ReadonlyMap<string, ReadonlyMap<string, unknown>> {
    return this.live;
  }

  get definitions(): DefinitionHashes {
    return this.hashes;
  }

  /** Journal records dispatched since the last `commit`. */
  get pendingRecords(): number {
    return this.pending.length;
  }

  /**
   * Commits the batch's journal records with its outbox entries (one transaction); resolves once
   * durable. Call it in the same turn as the batch's last `dispatch`.
   */
  commit(extra: Omit<CommitBatch, 'records'> = {}): Promise<CommitResult> {
    this.crash('after-eval');
    const records = this.pending;
    this.pending = [];
    return this.store.commitBatch({ ...extra, records });
  }

  /**
   * Applies newly compiled definition hashes (start-up after recovery, or a reload): states of
   * changed or removed groups are dropped, and the new map is journaled with the next commit so
   * replay drops the same states.
   */
  updateDefinitions(current: DefinitionHashes, at: number): DefinitionUpdate {
    const change = decideDefinitionChange(this.hashes, current);
    if (!hasDefinitionChange(change)) return { ...change, droppedStates: 0 };
    const droppedStates = dropChangedDefinitions(this.live, this.registry, change);
    this.hashes = { ...current };
    const event: DefinitionsEvent = { hashes: this.hashes };
    this.pending.push({ at, kind: DEFINITIONS_KIND, key: '', event });
    return { ...change, droppedStates };
  }

  snapshotDue(now: number): SnapshotReason | undefined {
    this.snapshotAt ??= now;
    return decideSnapshot(this.store.lastSeq - this.snapshotSeq, now - this.snapshotAt, this.policy);
  }

  /** Snapshots when the policy says so; returns the reason when it did. */
  async maybeSnapshot(now: number): Promise<SnapshotReason | undefined> {
    const reason = this.pending.length === 0 ? this.snapshotDue(now) : undefined;
    if (reason !== undefined) await this.snapshot(now);
    return reason;
  }

  /** Snapshots all states now (also at graceful shutdown). Only between batches. */
  async snapshot(now: number): Promise<boolean> {
    if (this.pending.length > 0) throw new Error('snapshot inside an uncommitted batch');
    const seq = this.store.lastSeq;
    const kinds: SnapshotKindInput[] = [];
    for (const [name, byKey] of this.live) {
      const kind = this.registry.get(name);
      if (kind !== undefined) kinds.push({ kind: name, version: kind.codec.version, entries: encodeEntries(byKey, (s) => kind.codec.encode(s)) });
    }
    this.snapshotSeq = seq;
    this.snapshotAt = now;
    return this.store.writeSnapshot({ seq, at: now, kinds, definitions: this.hashes });
  }
}

function* encodeEntries(byKey: ReadonlyMap<string, unknown>, encode: (s: unknown) => unknown): Iterable<readonly [string, unknown]> {
  for (const [key, state] of byKey) yield [key, encode(state)];
}
