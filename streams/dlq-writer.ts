import Type from 'typebox';
import type { StageContext } from './stage-context.js';

export const kind = 'dlq';

/** `--dlq file://PATH[?on_full=block|drop]`. */
export const configSchema = Type.Object({
  path: Type.String({ minLength: 1 }),
  on_full: Type.Union([Type.Literal('block'), Type.Literal('drop')], { default: 'block' }),
});
export type DlqConfig = Type.Static<typeof configSchema>;

/** One dead-letter line (daemon-semantics §4.5). */
const DlqEntrySchema = Type.Object({
  original_event: Type.String(),
  error: Type.String(),
  timestamp: Type.String(),
});
export type DlqEntry = Type.Static<typeof DlqEntrySchema>;

/** Appends lines to the DLQ file; the composition root supplies the file I/O. */
export type AppendLines = (text: string) => Promise<void>;

export interface DlqWriter {
  /**
   * Waits (first come, first served) until `count` more entries fit, then holds that room for the
   * caller's next `count` writes: a producer that can wait takes back-pressure instead of losing
   * entries. A count over the capacity holds the whole capacity.
   */
  reserve(count: number): Promise<void>;
  /**
   * Queue one entry into reserved room, else into free room; never throws. With neither (a full
   * queue and a producer that did not reserve) the entry is dropped, counted and logged.
   */
  write(originalEvent: string, error: string): void;
  /** Resolves when every queued entry was written. */
  flush(): Promise<void>;
  /** Entries queued or being written, plus room reserved; at most the capacity. */
  readonly depth: number;
  /** Entries lost: dropped for want of room, or in a failed write (§4.5: no retries). */
  readonly dropped: number;
}

/** RFC 3339 with fractional seconds and a `+00:00` offset. */
function timestamp(ms: number): string {
  return new Date(ms).toISOString().replace('Z', '+00:00');
}

/**
 * Writes in order, one append per burst, holding at most `capacity` entries (`--buffer-size`, as
 * daemon-semantics §2 sizes the DLQ channel). Counts `svc_dlq_events_total` for every entry
 * received, including when no DLQ is configured (`append` undefined: counted only, as §4.5 says,
 * so nothing is held and nothing waits). With `on_full: 'drop'` no producer ever waits: what does not
 * fit is dropped, counted and logged.
 */
export function create(ctx: StageContext, append: AppendLines | undefined, capacity: number, onFull: DlqConfig['on_full'] = 'block'): DlqWriter {
  const log = ctx.log.child({ component: 'dlq' });
  let pending: string[] = [];
  let writing = 0;
  let reserved = 0;
  let dropped = 0;
  let running: Promise<void> | undefined;
  const waiters: { readonly count: number; readonly resolve: () => void }[] = [];
  const used = (): number => pending.length + writing + reserved;
  const lose = (count: number, reason: string, err?: unknown): void => {
    dropped += count;
    log.error({ ...(err !== undefined ? { err } : {}), entries: count, dropped }, `dead-letter entries lost: ${reason}`);
  };
  const admitWaiters = (): void => {
    for (let w = waiters[0]; w !== undefined && used() + w.count <= capacity; w = waiters[0]) {
      waiters.shift();
      reserved += w.count;
      w.resolve();
    }
  };
  const pump = async (write: AppendLines): Promise<void> => {
    while (pending.length > 0) {
      const batch = pending;
      pending = [];
      writing = batch.length;
      try {
        await write(batch.join(''));
      } catch (error) {
        lose(batch.length, 'write failed', error);
      }
      writing = 0;
      admitWaiters();
    }
    running = undefined;
  };
  return {
    get depth() {
      return used();
    },
    get dropped() {
      return dropped;
    },
    reserve(count) {
      const held = Math.min(count, capacity);
      if (append === undefined || held <= 0 || onFull === 'drop') return Promise.resolve();
      return new Promise((resolve) => {
        waiters.push({ count: held, resolve });
        admitWaiters();
      });
    },
    write(originalEvent, error) {
      ctx.metrics.svc_dlq_events_total.inc();
      if (append === undefined) return;
      if (reserved > 0) reserved--;
      else if (used() >= capacity) return lose(1, 'queue full');
      const entry: DlqEntry = { original_event: originalEvent, error, timestamp: timestamp(ctx.clock.now()) };
      pending.push(`${JSON.stringify(entry)}\n`);
      // Started on a later tick so a synchronous burst of writes becomes one append.
      running ??= Promise.resolve().then(() => pump(append));
    },
    async flush() {
      while (running !== undefined) await running;
    },
  };
}
