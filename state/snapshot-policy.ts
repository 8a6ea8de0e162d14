export interface SnapshotPolicy {
  /** `--snapshot-every`: journal records between snapshots. */
  readonly every: number;
  /** `--snapshot-interval` in ms. */
  readonly intervalMs: number;
}

export type SnapshotReason = 'records' | 'interval';

/** Whether a snapshot is due, and why; nothing new since the last one means none is. */
export function decideSnapshot(recordsSince: number, msSince: number, policy: SnapshotPolicy): SnapshotReason | undefined {
  if (recordsSince <= 0) return undefined;
  if (recordsSince >= policy.every) return 'records';
  if (msSince >= policy.intervalMs) return 'interval';
  return undefined;
}
