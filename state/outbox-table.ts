import { batchFirst } from './batch-keys.js';
import type { KvBackend } from './kv-backend.js';
import { OutboxBatch } from './records.js';
import type { OutboxDraft } from './records.js';
import { StateCorruptionError } from './state-errors.js';
import { packValue, storedCodec } from './value-codec.js';

/**
 * Outbox layout: one value per committed batch at `outbox[last oseq]` (see `OutboxBatch`). A batch
 * is pruned once every sink has delivered its last result; the pruned floor in `meta` says where
 * the retained results really start.
 */

const batchCodec = storedCodec(OutboxBatch);

/** Packs a batch's results, numbered from `first`. */
export function encodeOutboxBatch(first: number, drafts: readonly OutboxDraft[]): Uint8Array {
  return packValue({ first, ids: drafts.map((d) => d.result_id), payloads: drafts.map((d) => d.payload) });
}

/** Stored batches holding sequences from `from` on, in order; an unreadable one throws, named by its first sequence. */
export function* outboxBatches(backend: KvBackend, from: number, floor: number): Generator<OutboxBatch> {
  let previous: number | undefined;
  for (const { key, value } of backend.range('outbox', { start: from })) {
    if (typeof key !== 'number') continue;
    const batch = batchCodec.decode(value);
    if (batch === undefined || batch.ids.length === 0 || batch.ids.length !== batch.payloads.length || batch.first + batch.ids.length - 1 !== key) {
      const first = previous !== undefined ? previous + 1 : batchFirst(backend, 'outbox', key, floor);
      throw new StateCorruptionError('outbox_entry_unreadable', first, `outbox entry ${first} is unreadable (with the rest of its batch, through ${key})`);
    }
    previous = key;
    yield batch;
  }
}
