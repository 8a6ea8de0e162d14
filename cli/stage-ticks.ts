import type { Logger } from 'pino';
import type { Clock } from '../streams/index.js';

/** The 1 s scheduler tick of the journaled stages (daemon-semantics §6). */
const TICK_MS = 1000;

/** A tick loop: `tick` runs every second, the next one armed only once the last has settled. */
export interface StageTicks {
  start(): void;
  stop(): void;
}

export function stageTicks(clock: Clock, tick: () => Promise<void>, log: Logger, what: string): StageTicks {
  let cancel: (() => void) | undefined;
  let stopped = false;
  const arm = (): void => {
    if (stopped) return;
    cancel = clock.setTimer(() => {
      void tick()
        .catch((error: unknown) => log.error({ err: error }, `${what} tick failed`))
        .finally(arm);
    }, TICK_MS);
  };
  return {
    start: arm,
    stop() {
      stopped = true;
      cancel?.();
    },
  };
}
