import type { CompiledCorrelation, GroupId, KeyPart } from '../../sigma/index.js';
import { groupParts } from '../../sigma/index.js';
import type { Entries } from './entries.js';
import { latestOf, NO_ENTRIES } from './entries.js';
import type { KeptEvent } from './events.js';

/** Where a group is in its lifecycle (see `spec.ts`). `expired` and `evicted` are final. */
export type GroupPhase = 'idle' | 'accumulating' | 'fired' | 'suppressed' | 'expired' | 'evicted';

/**
 * One correlation group: a compact plain record. Its window's entries are sorted by time (ties in
 * arrival order), with its type's aggregate kept up to date (see `entries.ts`). `def` points at the
 * shared compiled definition (not copied, encoded as its hash).
 */
export interface GroupState {
  readonly def: CompiledCorrelation;
  /** The group's identity (see `GroupId`); `partsOf` gives its components. */
  readonly id: GroupId;
  /**
   * The group's time (see `markOf`) stored as its distance past the newest entry: usually 0 or a small
   * integer, which V8 keeps unboxed, where an absolute epoch-ms time would cost a heap number per group.
   * Null before the group saw anything (which also keeps the field's representation tagged).
   */
  readonly ahead: number | null;
  readonly entries: Entries;
  /** Events kept for results (`refs`/`full` event mode), oldest first. */
  readonly kept: readonly KeptEvent[];
  /** Time of the last emitted result; -1 when none. */
  readonly lastAlert: number;
  readonly phase: GroupPhase;
}

/** The shared empty list of kept events. */
export const NO_KEPT: readonly never[] = Object.freeze([]);

/** The one place group records are made, so every record has the same shape (one hidden class). */
export function groupState(
  def: CompiledCorrelation,
  id: GroupId,
  mark: number,
  entries: Entries,
  kept: readonly KeptEvent[],
  lastAlert: number,
  phase: GroupPhase,
): GroupState {
  const latest = latestOf(entries);
  const ahead = mark < 0 ? null : latest !== undefined ? smallInt(mark - latest) : mark;
  return { def, id, ahead, entries, kept, lastAlert, phase };
}

/** An integral difference as an int32 when it fits (stored as a small integer, not a heap number). */
function smallInt(d: number): number {
  return (d | 0) === d ? d | 0 : d;
}

/** The group's time: the latest entry or tick time it has seen (epoch ms); -1 before the first. */
export function markOf(s: GroupState): number {
  if (s.ahead === null) return -1;
  const latest = latestOf(s.entries);
  return latest !== undefined ? latest + s.ahead : s.ahead;
}

export function initial(def: CompiledCorrelation, id: GroupId): GroupState {
  return groupState(def, id, -1, NO_ENTRIES, NO_KEPT, -1, 'idle');
}

/** The group-by components of a group, in group-by order (null = absent). */
export function partsOf(s: GroupState): KeyPart[] {
  return groupParts(s.def.groupBy.length, s.id);
}
