import type { CompiledCorrelation, KeyPart } from '../../sigma/correlation/index.js';
import type { HitValue, KeptEvent } from './events.js';

/** Where a group is in its lifecycle (see `spec.ts`). `expired` and `evicted` are final. */
export type GroupPhase = 'idle' | 'accumulating' | 'fired' | 'suppressed' | 'expired' | 'evicted';

/**
 * One correlation group: a compact plain record. Entries are parallel arrays sorted by time (ties in
 * arrival order). `def` points at the shared compiled definition (not copied, encoded as its hash).
 */
export interface GroupState {
  readonly def: CompiledCorrelation;
  readonly key: readonly KeyPart[];
  /** The group's time: the latest entry or tick it has seen (epoch ms); -1 before the first. */
  readonly mark: number;
  readonly ts: readonly number[];
  /** Rule mask per entry (temporal types only, else empty). */
  readonly rules: readonly number[];
  /** Aggregated input per entry (value_* types only, else empty). */
  readonly values: readonly HitValue[];
  /** Events kept for results (`refs`/`full` event mode), oldest first. */
  readonly kept: readonly KeptEvent[];
  /** Time of the last emitted result; -1 when none. */
  readonly lastAlert: number;
  readonly phase: GroupPhase;
}

export const NO_ENTRIES: readonly never[] = Object.freeze([]);

export function initial(def: CompiledCorrelation, key: readonly KeyPart[]): GroupState {
  return {
    def,
    key,
    mark: -1,
    ts: NO_ENTRIES,
    rules: NO_ENTRIES,
    values: NO_ENTRIES,
    kept: NO_ENTRIES,
    lastAlert: -1,
    phase: 'idle',
  };
}

/** Which per-entry arrays a correlation type keeps. */
export function keepsRules(def: CompiledCorrelation): boolean {
  return def.aggregate === 'rules' || def.aggregate === 'ordered';
}

export function keepsValues(def: CompiledCorrelation): boolean {
  return def.aggregate !== 'count' && def.aggregate !== 'rules' && def.aggregate !== 'ordered';
}
