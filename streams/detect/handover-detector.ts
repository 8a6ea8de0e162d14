// Detection while the worker pool comes up (issue 19 §2, §3): the calling thread evaluates with the rule
// set it built until every worker has built its own, then batches go to the pool. A caller becomes
// ready as soon as its own rules are built instead of after three compiles of the corpus on two cores.
// With `shareWhenBusy`, the calling thread also takes a batch whenever every worker already has its
// queue full (`sigmad eval`, where the calling thread has little else to do).
import type { Logger } from 'pino';
import type { UnitLines } from '../../protocol/index.js';
import type { Detector } from './detector.js';

export interface HandoverOptions {
  readonly log: Logger;
  /** Evaluate on the calling thread when the pool has no room (eval); the daemon's main thread has other work. */
  readonly shareWhenBusy?: boolean;
}

/** `start` begins building the pool; `signal` aborts when this detector closes first. */
export function handoverDetector(inline: Detector, start: (signal: AbortSignal) => Promise<Detector>, options: HandoverOptions): Detector {
  let pool: Detector | undefined;
  const closing = new AbortController();
  /** Batches handed to the pool and not settled yet. */
  let inPool = 0;
  // Once the pool serves, a calling thread that never evaluates again drops its evaluators (about a
  // third of a thread's rule set: the workers hold their own).
  const releaseInline = (): void => {
    if (pool !== undefined && options.shareWhenBusy !== true) inline.release?.();
  };
  const settled = start(closing.signal).then(
    (p) => {
      if (closing.signal.aborted) return p.close();
      pool = p;
      options.log.info({ parallelism: p.parallelism }, 'detection workers ready; batches move to them');
      releaseInline();
    },
    (error: unknown) => {
      if (closing.signal.aborted) return;
      // Main already evaluates correctly: losing the workers costs throughput, not results.
      options.log.error({ err: error }, 'detection workers did not start; detection stays on the main thread');
    },
  );
  const onPool = (p: Detector, lines: UnitLines, now: number) => {
    inPool++;
    const batch = p.detect(lines, now);
    const done = (): void => void inPool--;
    batch.then(done, done);
    return batch;
  };
  return {
    get parallelism() {
      if (pool === undefined) return inline.parallelism;
      return pool.parallelism + (options.shareWhenBusy === true ? inline.parallelism : 0);
    },
    detect(lines, now) {
      if (pool === undefined || (options.shareWhenBusy === true && inPool >= pool.parallelism)) return inline.detect(lines, now);
      return onPool(pool, lines, now);
    },
    async prepare(ruleSet, inputs) {
      // A reload while workers start waits for them, so that every evaluator gets the new rules.
      await settled;
      await inline.prepare(ruleSet, inputs);
      await pool?.prepare(ruleSet, inputs);
    },
    activate() {
      inline.activate();
      pool?.activate();
      releaseInline();
    },
    discard() {
      inline.discard();
      pool?.discard();
    },
    async close() {
      // Workers still building their rules are terminated, not waited for.
      closing.abort();
      await inline.close();
      await pool?.close();
      await settled;
    },
  };
}
