import { merge, mergeMap } from 'rxjs';
import type { InputQueue } from './input-queue.js';
import type { IngestSource } from './sources/ingest-source.js';
import type { StageContext } from './stage-context.js';

export interface Admission {
  /** Resolves once every source completed (stdin EOF) and each of their units was queued or refused. */
  readonly done: Promise<void>;
  /** Tears the sources down (shutdown): they stop reading and refuse new units. */
  stop(): void;
}

/**
 * The one admission point: every source's units, merged, offered to the bounded input queue in the
 * order they arrive. The queue stays hand-written because RxJS has no pull back-pressure: an offer
 * that does not fit waits there (counted in `svc_back_pressure_events_total`), and the unit's
 * `admitted` is called only once it was queued, so a self-paced source waits with it.
 */
export function admitSources(sources: readonly IngestSource[], queue: InputQueue, ctx: StageContext): Admission {
  const log = ctx.log.child({ component: 'admission' });
  let stop = (): void => undefined;
  const done = new Promise<void>((resolve) => {
    const subscription = merge(...sources)
      .pipe(
        // A refused unit is settled by the queue itself (its producer hears of it there).
        mergeMap((unit) => queue.offer(unit).then(() => unit.admitted?.(), () => unit.admitted?.())),
      )
      .subscribe({
        error: (error: unknown) => {
          log.error({ err: error }, 'ingest source failed; no more input is read');
          resolve();
        },
        complete: resolve,
      });
    stop = () => subscription.unsubscribe();
  });
  return { done, stop: () => stop() };
}
