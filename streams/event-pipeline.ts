import { decideSnapshot } from '../state/index.js';
import type { SnapshotPolicy, StateStore } from '../state/index.js';
import type { BatchProcessor } from './batch-processor.js';
import type { InputQueue } from './input-queue.js';
import type { SinkWorker } from './sinks/sink-worker.js';
import { sleep } from './stage-context.js';
import type { StageContext } from './stage-context.js';

export interface EventPipelineDeps {
  readonly queue: InputQueue;
  readonly processor: BatchProcessor;
  readonly sinks: readonly SinkWorker[];
  readonly store: StateStore;
  readonly batchSize: number;
  readonly snapshotPolicy: SnapshotPolicy;
  /** Writes a snapshot of the live state (between batches only). */
  readonly snapshot: (at: number) => Promise<unknown>;
}

/**
 * Runs batches off the input queue: detection of several batches may run at once (worker threads),
 * but their results are applied one at a time in input order (correlation state, result ids, commits),
 * and everything else that touches the live state (reload swaps, snapshots) runs between them.
 */
export class EventPipeline {
  /** Exclusive work, in call order. */
  private chain: Promise<unknown> = Promise.resolve();
  /** Settles when the newest batch taken has been handed over (applied in input order). */
  private applied: Promise<unknown> = Promise.resolve();
  private loop: Promise<void> | undefined;
  private snapshotSeq: number;
  private snapshotAt: number;
  private cancelSnapshotTimer: (() => void) | undefined;
  private stopped = false;

  constructor(
    private readonly ctx: StageContext,
    private readonly deps: EventPipelineDeps,
  ) {
    this.snapshotSeq = deps.store.lastSeq;
    this.snapshotAt = ctx.clock.now();
  }

  start(): void {
    for (const s of this.deps.sinks) s.start();
    this.loop ??= this.run();
    if (this.cancelSnapshotTimer === undefined) this.armSnapshotTimer();
  }

  /** Run `fn` with no batch in flight: no detection under way, every batch taken handed over. */
  exclusive<T>(fn: () => Promise<T> | T): Promise<T> {
    const next = this.chain.then(async () => {
      await this.applied;
      return fn();
    });
    this.chain = next.catch(() => undefined);
    return next;
  }

  /** Snapshot now if the policy says so. */
  private async maybeSnapshot(): Promise<void> {
    const now = this.ctx.clock.now();
    if (decideSnapshot(this.deps.store.lastSeq - this.snapshotSeq, now - this.snapshotAt, this.deps.snapshotPolicy) === undefined) return;
    await this.snapshotNow(now);
  }

  /**
   * `run()` only checks the policy after a batch, so an idle daemon would never take its interval
   * snapshot: a timer checks too, due when the interval since the last snapshot ends.
   */
  private armSnapshotTimer(): void {
    if (this.stopped) return;
    const { intervalMs } = this.deps.snapshotPolicy;
    const left = this.snapshotAt + intervalMs - this.ctx.clock.now();
    // Nothing was journaled when it last fired: wait a whole interval rather than spin.
    const delay = left > 0 ? left : intervalMs;
    this.cancelSnapshotTimer = this.ctx.clock.setTimer(() => {
      void this.exclusive(() => (this.stopped ? undefined : this.maybeSnapshot()))
        .catch((error: unknown) => this.ctx.log.child({ component: 'pipeline' }).error({ err: error }, 'interval snapshot failed'))
        .finally(() => this.armSnapshotTimer());
    }, delay);
  }

  private async snapshotNow(now: number): Promise<void> {
    this.snapshotSeq = this.deps.store.lastSeq;
    this.snapshotAt = now;
    await this.deps.snapshot(now);
  }

  /** Resolves when the input is exhausted (stdin EOF) or the queue was closed and drained. */
  done(): Promise<void> {
    return this.loop ?? Promise.resolve();
  }

  /**
   * Graceful stop: no new input, drain the queue and the sinks within `drainTimeoutMs`, then take a
   * final snapshot. Returns false when the deadline cut the drain short.
   */
  async stop(drainTimeoutMs: number): Promise<boolean> {
    const deadline = this.ctx.clock.now() + drainTimeoutMs;
    this.stopped = true;
    this.cancelSnapshotTimer?.();
    this.deps.queue.close();
    const drainedInput = await Promise.race([
      this.done().then(() => true),
      sleep(this.ctx.clock, drainTimeoutMs).then(() => false),
    ]);
    let drainedSinks = true;
    for (const s of this.deps.sinks) drainedSinks = (await s.stop(deadline)) && drainedSinks;
    if (drainedInput) await this.exclusive(() => this.snapshotNow(this.ctx.clock.now()));
    return drainedInput && drainedSinks;
  }

  /**
   * Up to `processor.parallelism` batches are detected ahead of the one being applied; each batch is
   * handed over after the previous one, and may be while the previous one's commit is still being
   * written (the store keeps commits in hand-over order). Batches whose commit is under way do not
   * count against detection's bound (a worker would sit idle while a commit is written and its answer
   * sent), but have a bound of their own, so at most twice `parallelism` batches are taken and not
   * yet committed.
   */
  private async run(): Promise<void> {
    const log = this.ctx.log.child({ component: 'pipeline' });
    const failed = (error: unknown): void => log.error({ err: error }, 'batch failed');
    const { processor } = this.deps;
    /** Taken and not yet handed over (detecting, or waiting for the batch before). */
    const detecting: Promise<unknown>[] = [];
    /** Taken and not yet committed. */
    const inFlight: Promise<void>[] = [];
    for (;;) {
      const units = await this.deps.queue.take(this.deps.batchSize);
      if (units.length === 0) break;
      // Exclusive work waits for what is in flight; nothing new starts until it is done.
      for (let seen = this.chain; ; seen = this.chain) {
        await seen;
        if (seen === this.chain) break;
      }
      const batch = processor.evaluate(units, this.ctx.clock.now());
      const handed = this.applied.then(async () => {
        try {
          const { committed } = await processor.handOver(batch);
          // The snapshot covers exactly what was handed over; its writes follow the commit.
          await this.maybeSnapshot();
          return { landed: committed.then(() => this.wakeSinks(), failed) };
        } catch (error) {
          failed(error);
          return { landed: Promise.resolve() };
        }
      });
      this.applied = handed;
      detecting.push(handed);
      inFlight.push(handed.then((h) => h.landed));
      while (detecting.length > processor.parallelism) await detecting.shift();
      while (inFlight.length > 2 * processor.parallelism) await inFlight.shift();
    }
    await Promise.all(inFlight);
  }

  private wakeSinks(): void {
    for (const s of this.deps.sinks) s.wake();
  }
}
