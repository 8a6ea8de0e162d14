import type { DefinitionHashes } from './records.js';

/**
 * One journaled kind as the state layer drives it (issue 6: every actor kind declares its journal
 * events and a snapshot codec). `state/` restores, replays and snapshots any registered kind through
 * these members without knowing what it means; the live states stay with the kind's own host (the
 * correlation runtime for `corr`), which the hooks read and write.
 *
 * Methods (not function-typed properties) on purpose: kinds with concrete `E`/`S` must be storable
 * in one registry of `JournaledKind<unknown, unknown>`.
 */
export interface JournaledKind<E, S> {
  /** Journal record `kind` and snapshot chunk `kind`; unique across the registry. */
  readonly kind: string;
  /** The journal event check (the kind's event schema, compiled). */
  isEvent(event: unknown): event is E;
  /** Completes "journal record N …" when `isEvent` refuses a record's event. */
  readonly malformed: string;
  readonly codec: SnapshotCodec<S>;
  /** Replaces the host's live states with restored ones (called once per recovery, maybe with none). */
  restore(states: readonly S[]): void;
  /** Applies one replayed, checked record to the host. */
  replay(key: string, event: E): ReplayOutcome;
  /** The live states to snapshot, in the order they are written, with their snapshot keys. */
  states(): Iterable<readonly [string, S]>;
  /** Definition hashes of what the host runs now (a snapshot's `definitions`, the `$definitions` check). */
  definitions?(): DefinitionHashes;
  /**
   * The hashes in force from now on, before the snapshot's states (from its header) and at every
   * replayed `$definitions` record: state of a hash the map no longer holds is dropped, as the live
   * reload that journaled it did.
   */
  definitionsInForce?(hashes: DefinitionHashes): void;
  /** A snapshot entry `codec.decode` could not rebuild (already counted by the driver). */
  undecodable?(encoded: unknown): void;
  /** Recovery is over: let go of what only restore and replay needed (the kind lives on for snapshots). */
  recovered?(): void;
}

/** What replaying one record did; `unfit` completes "journal record N …" and stops start-up (`fail`). */
export type ReplayOutcome = 'applied' | 'dropped' | { readonly unfit: string };

export interface SnapshotCodec<S> {
  /** Written in the snapshot header; bumped whenever `encode`'s output changes shape. */
  readonly version: number;
  encode(state: S): unknown;
  /** `version` is the one the entry was written with; `undefined` when it cannot be rebuilt (skipped, counted). */
  decode(encoded: unknown, version: number): S | undefined;
}

/** The registry's element type: any kind, with its types erased. */
export type AnyJournaledKind = JournaledKind<unknown, unknown>;

/** Registered kinds by journal `kind` name. */
export type KindRegistry = ReadonlyMap<string, AnyJournaledKind>;

/** Reserved journal kind for definition-hash changes (see `definitions.ts`). */
export const DEFINITIONS_KIND = '$definitions';

export function createKindRegistry(kinds: readonly AnyJournaledKind[]): KindRegistry {
  const registry = new Map<string, AnyJournaledKind>();
  for (const k of kinds) {
    if (k.kind === DEFINITIONS_KIND) throw new Error(`journaled kind name ${DEFINITIONS_KIND} is reserved`);
    if (registry.has(k.kind)) throw new Error(`journaled kind ${k.kind} is registered twice`);
    registry.set(k.kind, k);
  }
  return registry;
}

/** The definition hashes every registered kind runs now, merged. */
export function currentDefinitions(registry: KindRegistry): DefinitionHashes {
  const out: DefinitionHashes = {};
  for (const k of registry.values()) Object.assign(out, k.definitions?.());
  return out;
}
