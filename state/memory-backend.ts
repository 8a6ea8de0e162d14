import { TABLES } from './kv-backend.js';
import type { KvBackend, KvEntry, KvKey, KvRange, KvWriter, Table } from './kv-backend.js';
import { compareKvKeys } from './kv-key-order.js';

/** One ordered table: parallel sorted arrays; appends in key order (the common case) are O(1). */
class SortedTable {
  keys: KvKey[] = [];
  values: Uint8Array[] = [];

  /** First index whose key is >= `key`. */
  lowerBound(key: KvKey): number {
    let lo = 0;
    let hi = this.keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareKvKeys(this.keys[mid] as KvKey, key) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  get(key: KvKey): Uint8Array | undefined {
    const i = this.lowerBound(key);
    const k = this.keys[i];
    return k !== undefined && compareKvKeys(k, key) === 0 ? this.values[i] : undefined;
  }

  put(key: KvKey, value: Uint8Array): void {
    const last = this.keys[this.keys.length - 1];
    if (last === undefined || compareKvKeys(last, key) < 0) {
      this.keys.push(key);
      this.values.push(value);
      return;
    }
    const i = this.lowerBound(key);
    const k = this.keys[i];
    if (k !== undefined && compareKvKeys(k, key) === 0) {
      this.values[i] = value;
    } else {
      this.keys.splice(i, 0, key);
      this.values.splice(i, 0, value);
    }
  }

  bounds(range: KvRange | undefined): [number, number] {
    const from = range?.start === undefined ? 0 : this.lowerBound(range.start);
    const to = range?.end === undefined ? this.keys.length : this.lowerBound(range.end);
    return [from, Math.max(from, to)];
  }

  removeBetween(from: number, to: number): void {
    this.keys.splice(from, to - from);
    this.values.splice(from, to - from);
  }
}

/**
 * Memory backend: used when no `--state-db` is given, and by tests that reuse one instance across a
 * simulated crash (the instance plays the part of the disk).
 */
export class MemoryBackend implements KvBackend {
  private readonly tables = new Map<Table, SortedTable>(TABLES.map((t) => [t, new SortedTable()]));
  private readonly writer: KvWriter = {
    put: (table, key, value) => this.table(table).put(key, Uint8Array.from(value)),
    remove: (table, key) => {
      const t = this.table(table);
      const [from, to] = t.bounds({ start: key });
      const k = t.keys[from];
      if (from < to && k !== undefined && compareKvKeys(k, key) === 0) t.removeBetween(from, from + 1);
    },
    removeRange: (table, range) => {
      const t = this.table(table);
      const [from, to] = t.bounds(range);
      t.removeBetween(from, to);
    },
  };

  get(table: Table, key: KvKey): Uint8Array | undefined {
    return this.table(table).get(key);
  }

  *range(table: Table, range?: KvRange): Iterable<KvEntry> {
    const t = this.table(table);
    const [from, to] = t.bounds(range);
    // Copy the slice first: like an LMDB read snapshot, iteration is unaffected by later writes.
    const keys = t.keys.slice(from, to);
    const values = t.values.slice(from, to);
    const limit = range?.limit ?? Infinity;
    const n = Math.min(keys.length, limit);
    for (let i = 0; i < n; i++) {
      const at = range?.reverse === true ? keys.length - 1 - i : i;
      yield { key: keys[at] as KvKey, value: values[at] as Uint8Array };
    }
  }

  write(fn: (w: KvWriter) => void): Promise<void> {
    try {
      fn(this.writer);
      return Promise.resolve();
    } catch (e) {
      // Like LMDB's batched transactions: a throw rejects the commit, writes before it stay.
      return Promise.reject(e instanceof Error ? e : new Error(String(e)));
    }
  }

  sizeBytes(): number {
    return 0;
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  private table(t: Table): SortedTable {
    const table = this.tables.get(t);
    if (table === undefined) throw new Error(`unknown table ${t}`);
    return table;
  }
}
