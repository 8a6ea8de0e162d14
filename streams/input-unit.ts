import type { RejectedLine } from '../protocol/index.js';
import type { UnitLines } from '../protocol/index.js';

/** Lines handed to the engine together: one HTTP request, or a chunk of stdin. */
export interface InputUnit {
  /** Strings, or (HTTP NDJSON) the body's bytes, which become strings only where they are read. */
  readonly lines: UnitLines;
  /** Lines rejected before queueing (oversized, not UTF-8): counted as parse errors and dead-lettered. */
  readonly rejected: readonly RejectedLine[];
  readonly idempotencyKey?: string;
  /** Called once the unit's batch is committed (or failed). */
  readonly settle?: (outcome: UnitOutcome) => void;
  /**
   * Called once the admission point has queued all of the unit, or refused it. A source that reads
   * at its own pace (stdin, later pull sources) waits for it before reading on: that is its
   * back-pressure, which an Observable alone cannot express (RxJS has no pull back-pressure).
   */
  readonly admitted?: () => void;
  /** Where an acknowledging source stands once lines of this unit commit: stored in the same transaction. */
  readonly position?: UnitPosition;
  /**
   * Cluster mode: each line's JetStream stream sequence. Result and hit ids derive from it, so
   * whichever node processes a redelivered message names what it produces alike.
   */
  readonly sequences?: readonly number[];
}

/** A source's position, committed with the batch that holds its lines (exactly once into the journal). */
interface UnitPosition {
  /** Key of the stored position (`StateStore.inputPosition`). */
  readonly source: string;
  /**
   * Notes that the unit's first `lines` lines are being committed: a committing batch tells every unit
   * it holds, in order (a source may record each unit's own share, as the NATS input its sequences).
   */
  commit(lines: number): void;
  /** The position to store once every unit of the batch has been told its share. */
  value(): unknown;
}

export type UnitOutcome =
  | { readonly ok: true; readonly accepted: number; readonly parseErrors: number }
  | { readonly ok: false; readonly error: Error };

/** Rejection of a unit the input queue refused once closed; `accepted` of its lines were committed first. */
export class QueueClosedError extends Error {
  override readonly name = 'QueueClosedError';
  constructor(
    message: string,
    readonly accepted = 0,
  ) {
    super(message);
  }
}

/** Rejection of a keyed unit with more lines than the whole queue holds (it is never split). */
export class UnitTooLargeError extends Error {
  override readonly name = 'UnitTooLargeError';
  constructor(readonly capacity: number) {
    super(`a unit with an idempotency key may hold at most ${capacity} lines`);
  }
}
