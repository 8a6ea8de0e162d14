import { batchFirst } from './batch-keys.js';
import type { KvBackend } from './kv-backend.js';
import type { Utf8Lines } from './outbox-lines.js';
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

/**
 * Packs a batch's results, numbered from `first`. `lines`, when given, holds the drafts' payloads (all
 * texts) already encoded: they are copied, not encoded again, into the same bytes.
 */
export function encodeOutboxBatch(first: number, drafts: readonly OutboxDraft[], lines?: Utf8Lines): Uint8Array {
  const ids = drafts.map((d) => d.result_id);
  if (lines !== undefined && lines.length === drafts.length) return packWithTexts(first, ids, lines);
  return packValue({ first, ids, payloads: drafts.map((d) => d.payload) });
}

/**
 * What `packValue({first, ids, payloads})` writes when the payloads are the texts of `lines`: msgpackr
 * writes every header in its shortest form and a well-formed string as its UTF-8 bytes (result texts
 * are JSON, whose lone surrogates are escaped), so its bytes for `{first, ids, payloads: 0}` less the
 * last one, the array's header and each text's string header and bytes are the same bytes.
 */
function packWithTexts(first: number, ids: readonly string[], lines: Utf8Lines): Uint8Array {
  const head = packValue({ first, ids, payloads: 0 });
  const n = lines.length;
  let size = head.length - 1 + (n < 0x10 ? 1 : n < 0x10000 ? 3 : 5);
  for (let i = 0; i < n; i++) {
    const length = lines.end(i) - lines.start(i);
    size += length + (length < 0x20 ? 1 : length < 0x100 ? 2 : length < 0x10000 ? 3 : 5);
  }
  const out = Buffer.allocUnsafe(size);
  out.set(head.subarray(0, head.length - 1));
  let at = writeHeader(out, head.length - 1, n, 0x90, 0x10, 0, 0xdc, 0xdd);
  for (let i = 0; i < n; i++) {
    const start = lines.start(i);
    const end = lines.end(i);
    at = writeHeader(out, at, end - start, 0xa0, 0x20, 0xd9, 0xda, 0xdb);
    at += lines.bytes.copy(out, at, start, end);
  }
  return out;
}

/** A msgpack array or string header for `n`: the fix form below `fixBelow`, else 8 (when the type has it), 16 or 32 bits. */
function writeHeader(out: Buffer, at: number, n: number, fix: number, fixBelow: number, bits8: number, bits16: number, bits32: number): number {
  if (n < fixBelow) return out.writeUInt8(fix | n, at);
  if (bits8 !== 0 && n < 0x100) return out.writeUInt8(n, out.writeUInt8(bits8, at));
  if (n < 0x10000) return out.writeUInt16BE(n, out.writeUInt8(bits16, at));
  return out.writeUInt32BE(n, out.writeUInt8(bits32, at));
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
