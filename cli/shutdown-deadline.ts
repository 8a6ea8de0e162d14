// The bound on a stop asked for by a signal: a close step that hangs or spins must not leave a daemon
// that no longer answers and ignores SIGTERM.
import type { Logger } from 'pino';
import type { Clock } from '../streams/index.js';

/** What a stop may take beyond `--drain-timeout` (snapshots, closing sinks, workers and the state). */
export const SHUTDOWN_GRACE_MS = 10_000;

/** The longest a signalled stop may take: the drain timeout plus the grace. */
export function shutdownDeadlineMs(drainTimeoutSeconds: number): number {
  return drainTimeoutSeconds * 1000 + SHUTDOWN_GRACE_MS;
}

export interface ShutdownDeadlineDeps {
  readonly clock: Clock;
  readonly log: Logger;
  /** Ends the process (`process.exit`). */
  readonly exit: (code: number) => void;
}

/**
 * `stopping`, but when it has not settled `ms` after the signal the process exits 0 anyway, logged: like
 * a crash, what was not snapshotted is replayed from the journal at the next start.
 */
export function withShutdownDeadline(stopping: Promise<number>, ms: number, deps: ShutdownDeadlineDeps): Promise<number> {
  const cancel = deps.clock.setTimer(() => {
    deps.log.error({ deadlineMs: ms }, 'shutdown deadline passed; exiting without finishing the stop');
    deps.exit(0);
  }, ms);
  return stopping.finally(cancel);
}
