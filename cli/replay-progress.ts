import type { Logger } from 'pino';
import type { Recovered, RecoverProgress } from '../state/index.js';
import type { Clock } from '../streams/index.js';

export interface ReplayProgressRate {
  /** Log again once this many more records were replayed... */
  readonly everyRecords: number;
  /** ...or this long after the last line. */
  readonly everyMs: number;
}

const REPLAY_PROGRESS_RATE: ReplayProgressRate = { everyRecords: 100_000, everyMs: 5_000 };

/**
 * A start-up replay's progress callback that logs `replaying state` (records replayed, journal
 * length, elapsed) at a bounded rate: short replays log nothing, long ones a line per step.
 */
export function replayProgressLogger(log: Logger, clock: Clock, rate: ReplayProgressRate = REPLAY_PROGRESS_RATE): (p: RecoverProgress) => void {
  const startedAt = clock.now();
  let loggedRecords = 0;
  let loggedAt = startedAt;
  return (p) => {
    const now = clock.now();
    if (p.replayed - loggedRecords < rate.everyRecords && now - loggedAt < rate.everyMs) return;
    loggedRecords = p.replayed;
    loggedAt = now;
    log.info({ replayed: p.replayed, total: p.total, elapsed_ms: now - startedAt }, 'replaying state');
  };
}

/** What recovery passed over, each kind of loss on its own warning. */
export function logRecoveryLosses(log: Logger, recovered: Recovered): void {
  if (recovered.unreadableSnapshots.length > 0) {
    log.warn({ snapshots: recovered.unreadableSnapshots, fromSeq: recovered.snapshotSeq }, 'unreadable snapshots passed over');
  }
  if (recovered.skipped.length > 0) log.warn({ records: recovered.skipped }, 'journal records skipped (--state-recover skip)');
  if (recovered.undecodable > 0 || recovered.unknownSnapshotKinds.length > 0) {
    log.warn({ undecodable: recovered.undecodable, unknownKinds: recovered.unknownSnapshotKinds }, 'snapshot entries left out');
  }
}
