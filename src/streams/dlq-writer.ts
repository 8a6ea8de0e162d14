import Type from 'typebox';
import type { StageContext } from './stage-context.js';

export const kind = 'dlq';

/** `--dlq file://PATH`. */
export const configSchema = Type.Object({ path: Type.String({ minLength: 1 }) });
export type DlqConfig = Type.Static<typeof configSchema>;

/** One dead-letter line (daemon-semantics §4.5). */
export const DlqEntrySchema = Type.Object({
  original_event: Type.String(),
  error: Type.String(),
  timestamp: Type.String(),
});
export type DlqEntry = Type.Static<typeof DlqEntrySchema>;

/** Appends lines to the DLQ file; the composition root supplies the file I/O. */
export type AppendLines = (text: string) => Promise<void>;

export interface DlqWriter {
  /** Queue one entry; never throws (a failed write is logged and the entry lost). */
  write(originalEvent: string, error: string): void;
  /** Resolves when every queued entry was written. */
  flush(): Promise<void>;
}

/** RFC 3339 with fractional seconds and a `+00:00` offset. */
function timestamp(ms: number): string {
  return new Date(ms).toISOString().replace('Z', '+00:00');
}

/**
 * Writes in order, one append per burst. Counts `svc_dlq_events_total` for every entry received,
 * including when no DLQ is configured (`append` undefined: counted only, as §4.5 says).
 */
export function create(ctx: StageContext, append: AppendLines | undefined): DlqWriter {
  const log = ctx.log.child({ component: 'dlq' });
  let pending: string[] = [];
  let chain: Promise<void> = Promise.resolve();
  const drain = async (): Promise<void> => {
    if (append === undefined || pending.length === 0) return;
    const text = pending.join('');
    pending = [];
    try {
      await append(text);
    } catch (error) {
      log.error({ err: error }, 'dead-letter write failed');
    }
  };
  return {
    write(originalEvent, error) {
      ctx.metrics.svc_dlq_events_total.inc();
      if (append === undefined) return;
      const entry: DlqEntry = { original_event: originalEvent, error, timestamp: timestamp(ctx.clock.now()) };
      pending.push(`${JSON.stringify(entry)}\n`);
      if (pending.length === 1) chain = chain.then(drain);
    },
    flush() {
      return chain.then(drain);
    },
  };
}
