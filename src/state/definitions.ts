import type { KindRegistry, StateMaps } from './actor-states.js';
import type { DefinitionHashes } from './records.js';

/** How stored definition hashes compare with the ones just compiled. */
export interface DefinitionChange {
  readonly kept: readonly string[];
  readonly changed: readonly string[];
  readonly removed: readonly string[];
  readonly added: readonly string[];
}

/** The journal event of a `$definitions` record: the complete hash map in force from then on. */
export interface DefinitionsEvent {
  readonly hashes: DefinitionHashes;
}

export function isDefinitionsEvent(x: unknown): x is DefinitionsEvent {
  if (typeof x !== 'object' || x === null || !('hashes' in x)) return false;
  const h: unknown = x.hashes;
  return typeof h === 'object' && h !== null && Object.values(h).every((v) => typeof v === 'string');
}

export function decideDefinitionChange(stored: DefinitionHashes, current: DefinitionHashes): DefinitionChange {
  const kept: string[] = [];
  const changed: string[] = [];
  const removed: string[] = [];
  for (const [group, hash] of Object.entries(stored)) {
    const now = current[group];
    if (now === undefined) removed.push(group);
    else if (now === hash) kept.push(group);
    else changed.push(group);
  }
  const added = Object.keys(current).filter((g) => stored[g] === undefined);
  return { kept, changed, removed, added };
}

export function hasDefinitionChange(c: DefinitionChange): boolean {
  return c.changed.length + c.removed.length + c.added.length > 0;
}

/**
 * Forgets the state of every instance whose definition group changed or was removed; returns how
 * many were dropped. Groups are only known for kinds that declare `definitionGroup`.
 */
export function dropChangedDefinitions(states: StateMaps, registry: KindRegistry, change: DefinitionChange): number {
  const stale = new Set([...change.changed, ...change.removed]);
  if (stale.size === 0) return 0;
  let dropped = 0;
  for (const [kindName, byKey] of states) {
    const kind = registry.get(kindName);
    if (kind?.definitionGroup === undefined) continue;
    for (const key of [...byKey.keys()]) {
      const group = kind.definitionGroup(key);
      if (group !== undefined && stale.has(group)) {
        byKey.delete(key);
        dropped++;
      }
    }
  }
  return dropped;
}
