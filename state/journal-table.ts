import { batchFirst } from './batch-keys.js';
import type { KvBackend } from './kv-backend.js';
import { JournalBatch } from './records.js';
import type { JournalDraft, JournalRecord } from './records.js';
import { packRows, storedCodec } from './value-codec.js';

/**
 * Journal layout: one value per committed batch at `journal[last seq]` (see `JournalBatch`).
 * Pruning drops whole batches at or below the kept snapshot; records of a straddling batch at or
 * below it are passed over on replay.
 */

const batchCodec = storedCodec(JournalBatch);

/** Packs a batch's records, numbered from `first`. */
export function encodeJournalBatch(first: number, drafts: readonly JournalDraft[]): Uint8Array {
  return packRows({ first, records: drafts.map((r, i) => ({ seq: first + i, at: r.at, kind: r.kind, key: r.key, event: r.event })) });
}

export interface StoredJournalBatch {
  readonly first: number;
  readonly last: number;
  /** Undefined when the value cannot be read: the whole batch is lost. */
  readonly records: readonly JournalRecord[] | undefined;
}

/** Stored batches holding sequences after `fromSeq`, in order. */
export function* journalBatches(backend: KvBackend, fromSeq: number, floor: number): Generator<StoredJournalBatch> {
  let previous: number | undefined;
  for (const { key, value } of backend.range('journal', { start: fromSeq + 1 })) {
    if (typeof key !== 'number') continue;
    const batch = batchCodec.decode(value);
    const first = previous !== undefined ? previous + 1 : undefined;
    previous = key;
    if (batch !== undefined && isWhole(batch, key)) {
      yield { first: batch.first, last: key, records: batch.records };
    } else {
      yield { first: first ?? batchFirst(backend, 'journal', key, floor), last: key, records: undefined };
    }
  }
}

function isWhole(batch: JournalBatch, last: number): boolean {
  const n = batch.records.length;
  if (n === 0 || batch.first + n - 1 !== last) return false;
  for (let i = 0; i < n; i++) if ((batch.records[i] as JournalRecord).seq !== batch.first + i) return false;
  return true;
}
