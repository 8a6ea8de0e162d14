import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { JournalRecord } from './records.js';
import type { RecoverMode, ReplayStats, StateStore } from './state-store.js';

export interface RecoverProgress {
  readonly replayed: number;
  /** Records the journal holds after the snapshot (an upper bound on what is left). */
  readonly total: number;
}

export interface ReplaySliceOptions {
  /** Called after every slice of replayed records, for progress logs during long replays. */
  readonly onProgress?: (p: RecoverProgress) => void;
  /** Records per slice; the event loop gets a turn between slices. */
  readonly sliceSize?: number;
}

const DEFAULT_REPLAY_SLICE = 50_000;

/**
 * `store.replay` from `fromSeq` in slices with a turn of the event loop between them, so the HTTP
 * listener keeps answering (`/readyz`, `/healthz`) during a long start-up replay.
 */
export async function replayInSlices(
  store: StateStore,
  fromSeq: number,
  visit: (record: JournalRecord) => void,
  mode: RecoverMode,
  options: ReplaySliceOptions = {},
): Promise<ReplayStats> {
  const sliceSize = options.sliceSize ?? DEFAULT_REPLAY_SLICE;
  const total = Math.max(0, store.lastSeq - fromSeq);
  const skipped: number[] = [];
  let seq = fromSeq;
  let replayed = 0;
  for (;;) {
    const slice = store.replay(seq, visit, mode, sliceSize);
    if (slice.lastSeq === seq) break;
    seq = slice.lastSeq;
    replayed += slice.replayed;
    skipped.push(...slice.skipped);
    options.onProgress?.({ replayed, total });
    await yieldToEventLoop();
  }
  return { replayed, skipped, lastSeq: seq };
}
