import type { KvBackend, KvEntry, KvKey, KvRange, KvWriter, Table } from '../../../state/kv-backend.js';
import { MemoryBackend } from '../../../state/index.js';

/**
 * A memory "disk" whose writes can be held back and then lost, like LMDB transactions still queued
 * when the process dies. While `holding`, writes are kept aside (invisible to reads); `crash()`
 * forgets them, and `disk` reopens as what survived.
 */
export class LossyBackend implements KvBackend {
  readonly disk = new MemoryBackend();
  holding = false;
  private held: ((w: KvWriter) => void)[] = [];

  get(table: Table, key: KvKey): Uint8Array | undefined {
    return this.disk.get(table, key);
  }

  range(table: Table, range?: KvRange): Iterable<KvEntry> {
    return this.disk.range(table, range);
  }

  write(fn: (w: KvWriter) => void): Promise<void> {
    if (!this.holding) return this.disk.write(fn);
    this.held.push(fn);
    return new Promise(() => undefined);
  }

  crash(): void {
    this.held = [];
  }

  sizeBytes(): number {
    return 0;
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** A memory disk whose next write fails when `failNext` is set (as LMDB's would on a full disk). */
export class FailingBackend implements KvBackend {
  readonly disk = new MemoryBackend();
  failNext = false;

  get(table: Table, key: KvKey): Uint8Array | undefined {
    return this.disk.get(table, key);
  }

  range(table: Table, range?: KvRange): Iterable<KvEntry> {
    return this.disk.range(table, range);
  }

  write(fn: (w: KvWriter) => void): Promise<void> {
    if (!this.failNext) return this.disk.write(fn);
    this.failNext = false;
    // The transaction ran and was rolled back: nothing it wrote is stored.
    fn({ put: () => undefined, remove: () => undefined, removeRange: () => undefined });
    return Promise.reject(new Error('disk full'));
  }

  sizeBytes(): number {
    return 0;
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
