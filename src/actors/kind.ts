/**
 * The one shape every journaled actor kind shares (STYLE rule 9). `state/` hosts, journals,
 * snapshots and replays any value of this shape without knowing what the kind means.
 *
 * Methods (not function-typed properties) on purpose: kinds with concrete `S`/`E`/`F` must be
 * storable in one registry of `ActorKind<unknown, unknown, unknown>`.
 */
export interface ActorKind<S, E, F> {
  /** Journal `kind` field; unique across the registry. */
  readonly kind: string;
  /** States are never `undefined` (the host uses `undefined` for "no instance"). */
  initial(key: string): S;
  /** Pure: same state and event give the same result; never reads a clock. */
  transition(state: S, event: E): Transition<S, F>;
  readonly codec: StateCodec<S>;
  /** True when the instance holds nothing worth keeping; the host then forgets it. */
  retired?(state: S): boolean;
  /**
   * The definition group an instance belongs to (e.g. `corr:<rule-id>`), whose compiled
   * definition hash decides whether its state survives a restart or reload.
   */
  definitionGroup?(key: string): string | undefined;
  /** Narrows a journaled event read back from disk; a `false` makes the record unreadable. */
  isEvent?(event: unknown): event is E;
}

export interface Transition<S, F> {
  readonly state: S;
  readonly effects: readonly F[];
}

export interface StateCodec<S> {
  /** Bumped whenever `encode`'s output changes shape. */
  readonly version: number;
  encode(state: S): unknown;
  /** `version` is the one the value was written with; older ones are upgraded or rejected (throw). */
  decode(encoded: unknown, version: number): S;
}

/** The registry's element type: any kind, with its types erased. */
export type AnyActorKind = ActorKind<unknown, unknown, unknown>;
