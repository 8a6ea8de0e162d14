// What a start-up drops: groups the stored state holds for correlations the loaded rules changed or
// removed, which the runtime never holds and so cannot count itself.
import type { DefinitionHashes } from '../state/index.js';

/** State of one correlation dropped because its definition changed or was removed (logged and counted). */
export interface DroppedCorrelationState {
  /** Id, else name, else definition hash (as journal keys name it). */
  readonly correlation: string;
  readonly reason: 'changed' | 'removed';
  readonly groups: number;
}

/**
 * Groups of definitions the loaded rules cannot rebuild (their hash matches no loaded correlation),
 * tracked by key only so a start-up can say what it drops. A tick that would have expired one is
 * not seen, so the count can include groups that were about to expire.
 */
export class ForeignGroups {
  private readonly byHash = new Map<string, Set<string>>();

  note(hash: string, groupKey: string, gone: boolean): void {
    const keys = this.byHash.get(hash) ?? new Set<string>();
    if (gone) keys.delete(groupKey);
    else keys.add(groupKey);
    this.byHash.set(hash, keys);
  }

  /** A replayed reload: what its definitions no longer hold was dropped by the live daemon then. */
  keepOnly(hashes: ReadonlySet<string>): void {
    for (const h of [...this.byHash.keys()]) if (!hashes.has(h)) this.byHash.delete(h);
  }

  /** Per stored correlation (named by the hashes in force at the end of the journal), against the loaded ones. */
  report(inForce: DefinitionHashes, current: DefinitionHashes): DroppedCorrelationState[] {
    const out: DroppedCorrelationState[] = [];
    for (const [hash, keys] of this.byHash) {
      if (keys.size === 0) continue;
      const names = Object.keys(inForce).filter((n) => inForce[n] === hash);
      const name = names[0];
      out.push({
        correlation: name === undefined ? hash : name.slice(name.indexOf(':') + 1),
        reason: names.some((n) => current[n] !== undefined) ? 'changed' : 'removed',
        groups: keys.size,
      });
    }
    return out.sort((a, b) => (a.correlation < b.correlation ? -1 : a.correlation > b.correlation ? 1 : 0));
  }
}
