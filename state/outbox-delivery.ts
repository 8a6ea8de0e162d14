import { noCrash } from './crash-points.js';
import type { CrashHook } from './crash-points.js';
import { lastResultIdInFile } from './file-tail.js';
import type { OutboxEntry } from './records.js';
import type { StateStore } from './state-store.js';

export interface DeliverOptions {
  /** Entries per write. */
  readonly limit: number;
  readonly crashHook?: CrashHook;
}

/**
 * One delivery round for `sink`: the entries after its watermark, written in order, then the
 * watermark advanced. A crash between the write and the acknowledgement re-delivers the same
 * entries (same `result_id`s) on restart. Returns how many entries were delivered.
 */
export async function deliverOutboxOnce(
  store: StateStore,
  sink: string,
  write: (entries: readonly OutboxEntry[]) => Promise<void>,
  options: DeliverOptions,
): Promise<number> {
  const entries = store.readOutbox(sink, options.limit);
  const last = entries[entries.length - 1];
  if (last === undefined) return 0;
  await write(entries);
  (options.crashHook ?? noCrash)('after-sink-write');
  await store.ackDelivered(sink, last.oseq);
  return entries.length;
}

/**
 * File sink start-up: if the file already ends with a line the watermark does not cover (a crash
 * after the write, before the acknowledgement), acknowledge up to it so it is not written twice.
 * Returns the outbox sequence acknowledged, if any.
 */
export async function reconcileFileSink(store: StateStore, sink: string, path: string): Promise<number | undefined> {
  const resultId = await lastResultIdInFile(path);
  const oseq = resultId === undefined ? undefined : store.findOutboxSeq(sink, resultId);
  if (oseq !== undefined) await store.ackDelivered(sink, oseq);
  return oseq;
}
