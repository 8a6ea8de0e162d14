import type { Logger } from 'pino';
import type { MetricHandles } from '../protocol/index.js';

/** Wall time and timers, injected so tests drive time themselves (STYLE rule 10). */
export interface Clock {
  now(): number;
  /** Run `fn` after `ms`; returns a cancel function. */
  setTimer(fn: () => void, ms: number): () => void;
}

/** What every source, stage and sink is created with (STYLE rule 7). */
export interface StageContext {
  readonly log: Logger;
  readonly metrics: MetricHandles;
  readonly clock: Clock;
  /** Aborted when the daemon stops. */
  readonly signal: AbortSignal;
}

/** The real clock; only the composition root hands it out. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer(fn, ms) {
    const t = setTimeout(fn, ms);
    return () => clearTimeout(t);
  },
};

/** Resolves after `ms` on `clock`, or at once when `signal` aborts. */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted === true) return resolve();
    const done = (): void => {
      cancel();
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const cancel = clock.setTimer(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
