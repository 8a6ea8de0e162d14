import type { ActorKind, AnyActorKind } from '../actors/index.js';

/** Live states: kind name → actor key → state. */
export type StateMaps = Map<string, Map<string, unknown>>;

/** Registered kinds by name; a journal record's `kind` picks its reducer. */
export type KindRegistry = ReadonlyMap<string, AnyActorKind>;

/** Reserved journal kind for definition-hash changes (see `definitions.ts`). */
export const DEFINITIONS_KIND = '$definitions';

export function createKindRegistry(kinds: readonly AnyActorKind[]): KindRegistry {
  const registry = new Map<string, AnyActorKind>();
  for (const k of kinds) {
    if (k.kind === DEFINITIONS_KIND) throw new Error(`actor kind name ${DEFINITIONS_KIND} is reserved`);
    if (registry.has(k.kind)) throw new Error(`actor kind ${k.kind} is registered twice`);
    registry.set(k.kind, k);
  }
  return registry;
}

export function createStateMaps(registry: KindRegistry): StateMaps {
  return new Map([...registry.keys()].map((k) => [k, new Map<string, unknown>()]));
}

/**
 * Runs one transition and stores the result; the single path both live dispatch and replay take,
 * so replay reproduces live state. A retired instance is forgotten.
 */
export function applyTransition<S, E, F>(states: StateMaps, kind: ActorKind<S, E, F>, key: string, event: E): readonly F[] {
  let byKey = states.get(kind.kind);
  if (byKey === undefined) {
    byKey = new Map();
    states.set(kind.kind, byKey);
  }
  // Only this kind's own transitions (or its codec) ever stored values under its name; a state is
  // never `undefined`, so one lookup tells absent from present (this runs per replayed record).
  const stored = byKey.get(key);
  const current = (stored === undefined ? kind.initial(key) : stored) as S;
  const { state, effects } = kind.transition(current, event);
  if (kind.retired?.(state) === true) byKey.delete(key);
  else byKey.set(key, state);
  return effects;
}

export function countStates(states: StateMaps): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [kind, byKey] of states) out[kind] = byKey.size;
  return out;
}
