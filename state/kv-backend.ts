/**
 * The few storage operations the state store needs, so one store implementation runs over LMDB and
 * over memory with the same semantics. Values are opaque bytes: the store encodes and checks them
 * itself, which is what lets it name an unreadable record instead of failing inside the backend.
 * A value read (from `get` or `range`) may be a view into a reused buffer: decode or copy it
 * before the next read or iteration step.
 */
export type Table = 'journal' | 'outbox' | 'snapshots' | 'meta' | 'idempotency' | 'idempotency_order' | 'audit';

export const TABLES: readonly Table[] = ['journal', 'outbox', 'snapshots', 'meta', 'idempotency', 'idempotency_order', 'audit'];

/** Keys within one table are all of one shape: numbers, strings or arrays of numbers. */
export type KvKey = number | string | readonly number[];

export interface KvEntry {
  readonly key: KvKey;
  readonly value: Uint8Array;
}

export interface KvRange {
  /** Inclusive. */
  readonly start?: KvKey;
  /** Exclusive. */
  readonly end?: KvKey;
  readonly reverse?: boolean;
  readonly limit?: number;
}

/** One row written beside a batch (e.g. the audit record of a control call). */
export interface KvPut {
  readonly table: Table;
  readonly key: KvKey;
  readonly value: Uint8Array;
}

export interface KvWriter {
  put(table: Table, key: KvKey, value: Uint8Array): void;
  remove(table: Table, key: KvKey): void;
  /** Removes every key in `range` (same bounds as reads; `reverse`/`limit` ignored). */
  removeRange(table: Table, range: KvRange): void;
}

export interface KvBackend {
  get(table: Table, key: KvKey): Uint8Array | undefined;
  /** Ordered by key (numbers numerically, arrays element by element), lazily. */
  range(table: Table, range?: KvRange): Iterable<KvEntry>;
  /**
   * Runs `fn` in one write transaction, in call order relative to other `write` calls; resolves
   * once the transaction is durable. `fn` must not throw: like LMDB's batched async transactions,
   * a write made before a throw may still commit, so callers order writes to be safe when cut short.
   */
  write(fn: (w: KvWriter) => void): Promise<void>;
  /** Bytes the backend occupies on disk (0 in memory). */
  sizeBytes(): number;
  close(): Promise<void>;
}
