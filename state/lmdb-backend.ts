import { statSync } from 'node:fs';
import { join } from 'node:path';
import { open } from 'lmdb';
import type { Database, RootDatabase } from 'lmdb';
import { TABLES } from './kv-backend.js';
import type { KvBackend, KvEntry, KvKey, KvRange, KvWriter, Table } from './kv-backend.js';

export interface LmdbBackendOptions {
  /** Open an existing environment without writing (for `sigmad state inspect`). */
  readonly readOnly?: boolean;
}

type LmdbKey = number | string | number[];
type Db = Database<Uint8Array, LmdbKey>;

// lmdb's key type has mutable arrays; ours are readonly views of the same values.
const lmdbKey = (k: KvKey): LmdbKey => k as LmdbKey;

/**
 * Values pass through as bytes, and reads return views into lmdb's read buffer instead of copies
 * (about a third less CPU per replayed record): hence the `KvBackend` rule that a value is
 * consumed before the next read.
 */
const RAW_VIEWS: { encoder: { encode(v: Uint8Array): Uint8Array; decode(bytes: Uint8Array, end: number): Uint8Array } } = {
  encoder: { encode: (v) => v, decode: (bytes, end) => bytes.subarray(0, end) },
};

/** The only place that opens LMDB (ARCHITECTURE: `state/` owns it). */
export class LmdbBackend implements KvBackend {
  private readonly root: RootDatabase<Uint8Array, LmdbKey>;
  private readonly dbs: Map<Table, Db>;
  private readonly writer: KvWriter;

  constructor(
    private readonly dir: string,
    options: LmdbBackendOptions = {},
  ) {
    // Values are one committed batch of small records or of result text: compressing them would run
    // on the main thread (puts run in the transaction callback) and cost throughput (libraries.md §5).
    this.root = open<Uint8Array, LmdbKey>({ path: dir, maxDbs: 16, compression: false, readOnly: options.readOnly === true });
    this.dbs = new Map();
    for (const t of TABLES) {
      // Read-only, a table never written yet does not exist: openDB then yields nothing.
      const db = this.root.openDB<Uint8Array, LmdbKey>({ name: t, ...RAW_VIEWS }) as Db | undefined;
      if (db !== undefined) this.dbs.set(t, db);
    }
    this.writer = {
      put: (t, key, value) => void this.db(t).put(lmdbKey(key), value),
      remove: (t, key) => void this.db(t).remove(lmdbKey(key)),
      removeRange: (t, range) => {
        const db = this.db(t);
        // Collect first: removing under a live cursor of the same transaction is not safe.
        for (const key of [...db.getKeys(lmdbRange(range))]) void db.remove(key);
      },
    };
  }

  get(table: Table, key: KvKey): Uint8Array | undefined {
    return this.dbs.get(table)?.get(lmdbKey(key));
  }

  range(table: Table, range: KvRange = {}): Iterable<KvEntry> {
    const db = this.dbs.get(table);
    if (db === undefined) return [];
    const limit = range.limit !== undefined ? { limit: range.limit } : {};
    if (range.reverse !== true) return db.getRange({ ...lmdbRange(range), ...limit });
    // lmdb iterates a reverse range from `start` (the high end) down to `end`.
    return db.getRange({
      reverse: true,
      ...limit,
      ...(range.end !== undefined ? { start: lmdbKey(range.end), exclusiveStart: true } : {}),
      ...(range.start !== undefined ? { end: lmdbKey(range.start), inclusiveEnd: true } : {}),
    });
  }

  async write(fn: (w: KvWriter) => void): Promise<void> {
    await this.root.transaction(() => fn(this.writer));
    // With overlappingSync (the Linux default) a commit is visible before it is on disk.
    await this.root.flushed;
  }

  /** A compacted copy of the environment written to `targetDir` (an existing, empty directory). */
  copyCompacted(targetDir: string): Promise<void> {
    return this.root.backup(targetDir, true);
  }

  sizeBytes(): number {
    try {
      return statSync(join(this.dir, 'data.mdb')).size;
    } catch {
      return 0;
    }
  }

  close(): Promise<void> {
    return this.root.close();
  }

  private db(t: Table): Db {
    const db = this.dbs.get(t);
    if (db === undefined) throw new Error(`table ${t} is not open for writing`);
    return db;
  }
}

function lmdbRange(r: KvRange): { start?: LmdbKey; end?: LmdbKey } {
  return {
    ...(r.start !== undefined ? { start: lmdbKey(r.start) } : {}),
    ...(r.end !== undefined ? { end: lmdbKey(r.end) } : {}),
  };
}
