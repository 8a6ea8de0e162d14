import type { KvBackend } from './kv-backend.js';

/** Tables whose keys are sequence numbers. */
export type SeqTable = 'journal' | 'outbox' | 'idempotency_order';

export function firstNumberKey(backend: KvBackend, table: SeqTable): number | undefined {
  for (const { key } of backend.range(table, { limit: 1 })) return typeof key === 'number' ? key : undefined;
  return undefined;
}

export function lastNumberKey(backend: KvBackend, table: SeqTable): number {
  for (const { key } of backend.range(table, { reverse: true, limit: 1 })) return typeof key === 'number' ? key : 0;
  return 0;
}

/**
 * The first sequence of the batch stored at `last`: one after the batch before it (or after the
 * pruned floor). What an unreadable batch is named by, since its own `first` cannot be read.
 */
export function batchFirst(backend: KvBackend, table: SeqTable, last: number, floor: number): number {
  for (const { key } of backend.range(table, { end: last, reverse: true, limit: 1 })) {
    if (typeof key === 'number') return Math.min(last, key + 1);
  }
  return Math.min(last, floor + 1);
}
