import { noCrash } from './crash-points.js';
import type { CrashHook } from './crash-points.js';
import { firstNumberKey, lastNumberKey } from './batch-keys.js';
import { encodeJournalBatch, journalBatches } from './journal-table.js';
import type { KvBackend, KvPut, KvWriter } from './kv-backend.js';
import type { Utf8Lines } from './outbox-lines.js';
import { encodeOutboxBatch, outboxBatches } from './outbox-table.js';
import { Counters, IdempotencyEntry, IdempotencyOrder, InputPosition, PrunedFloor, Watermark } from './records.js';
import type { JournalDraft, JournalRecord, OutboxDraft, OutboxEntry } from './records.js';
import { encodeSnapshot, listSnapshots, loadSnapshotChunks, writeSnapshotTables } from './snapshot-tables.js';
import type { LoadedSnapshot, SnapshotInput } from './snapshot-tables.js';
import { StateCorruptionError } from './state-errors.js';
import { checkFormat, writeFormat } from './state-format.js';
import { packValue, storedCodec } from './value-codec.js';

export interface IdempotencyRetention {
  /** Keys older than this (by commit time) are forgotten. */
  readonly maxAgeMs: number;
  /** At most this many keys are kept; the oldest go first. */
  readonly maxKeys: number;
}

export interface StateStoreOptions {
  /**
   * Sinks that deliver from the outbox; an entry is pruned once all of them have acknowledged it.
   * With none, nothing waits for delivery and snapshots prune the whole outbox.
   */
  readonly sinks?: readonly string[];
  readonly idempotency?: IdempotencyRetention;
  readonly crashHook?: CrashHook;
  /** States per snapshot chunk. */
  readonly snapshotChunkSize?: number;
}

export interface CommitBatch {
  readonly records: readonly JournalDraft[];
  readonly outbox?: readonly OutboxDraft[];
  /** The outbox payloads (every one a text) already encoded, in order: packed without encoding them again. */
  readonly outboxLines?: Utf8Lines;
  /** Input events this batch consumed (advances `nextInputOrdinal`) and where the source stands. */
  readonly input?: { readonly count: number; readonly source?: string; readonly position?: unknown };
  /** The answer to remember for a request's `Idempotency-Key`; `at` is the commit time in ms. */
  readonly idempotency?: { readonly key: string; readonly answer: unknown; readonly at: number };
  /** Further rows committed in the same transaction (the audit record of a control call). */
  readonly puts?: readonly KvPut[];
}

/** Sequences the batch received; `first* > last*` when it had none of that kind. */
export interface CommitResult {
  readonly firstSeq: number;
  readonly lastSeq: number;
  readonly firstOseq: number;
  readonly lastOseq: number;
}

export type RecoverMode = 'fail' | 'skip';

export interface SnapshotBase {
  /** Undefined: start from initial states at sequence 0. */
  readonly snapshot: LoadedSnapshot | undefined;
  /** Snapshots passed over because they could not be read, newest first. */
  readonly unreadable: readonly number[];
  /** The journal sequence the base includes; replay starts after it. */
  readonly seq: number;
}

export interface ReplayStats {
  readonly replayed: number;
  readonly skipped: readonly number[];
  /** The last sequence read (replayed or skipped); `fromSeq` when there was none. */
  readonly lastSeq: number;
}

export type IdempotencyLookup =
  | { readonly status: 'committed'; readonly answer: unknown }
  | { readonly status: 'pending'; readonly answer: Promise<unknown> };

const DEFAULT_RETENTION: IdempotencyRetention = { maxAgeMs: 24 * 3600_000, maxKeys: 100_000 };
const COUNTERS_KEY = 'counters';
const SINK_PREFIX = 'sink:';
const POSITION_PREFIX = 'pos:';
const JOURNAL_FLOOR_KEY = 'journal_floor';
const OUTBOX_FLOOR_KEY = 'outbox_floor';
/** Bounds the pruning work one commit does; one key is added per commit, so this keeps up. */
const IDEMPOTENCY_PRUNE_PER_COMMIT = 64;

const countersCodec = storedCodec(Counters);
const floorCodec = storedCodec(PrunedFloor);
const watermarkCodec = storedCodec(Watermark);
const positionCodec = storedCodec(InputPosition);
const idempotencyCodec = storedCodec(IdempotencyEntry);
const idempotencyOrderCodec = storedCodec(IdempotencyOrder);

/**
 * The journal, outbox, sink watermarks, snapshots, input positions and idempotency keys of one
 * daemon, over any `KvBackend`. Sequence numbers are assigned synchronously when a batch is handed
 * over, and backend writes run in call order, so callers may pipeline commits.
 */
export class StateStore {
  private counters: Counters;
  private readonly watermarks = new Map<string, number>();
  private readonly pendingIdempotency = new Map<string, Promise<unknown>>();
  private readonly sinks: readonly string[];
  private readonly retention: IdempotencyRetention;
  private readonly crash: CrashHook;
  private readonly chunkSize: number;
  /** Journal sequences and outbox sequences at or below these are pruned (see `PrunedFloor`). */
  private journalFloor: number;
  private outboxFloor: number;
  /** Sinks whose watermark moved since the last acknowledgement write. */
  private readonly unsavedWatermarks = new Set<string>();
  private ackQueued = false;
  private ackWrite: Promise<void> = Promise.resolve();
  private ackFailure: Error | undefined;

  private constructor(
    readonly backend: KvBackend,
    options: StateStoreOptions,
  ) {
    this.sinks = options.sinks ?? [];
    this.retention = options.idempotency ?? DEFAULT_RETENTION;
    this.crash = options.crashHook ?? noCrash;
    this.chunkSize = options.snapshotChunkSize ?? 1000;
    this.counters = readCounters(backend);
    this.journalFloor = readFloor(backend, JOURNAL_FLOOR_KEY);
    this.outboxFloor = readFloor(backend, OUTBOX_FLOOR_KEY);
    for (const { key, value } of backend.range('meta', { start: SINK_PREFIX, end: 'sink;' })) {
      const wm = watermarkCodec.decode(value);
      if (typeof key === 'string' && wm !== undefined) this.watermarks.set(key.slice(SINK_PREFIX.length), wm.oseq);
    }
  }

  /**
   * Opens a store; configured sinks that never delivered start at the oldest retained entry.
   * Throws `StateFormatError` for an environment written in another layout.
   */
  static async open(backend: KvBackend, options: StateStoreOptions = {}): Promise<StateStore> {
    const format = checkFormat(backend);
    const store = new StateStore(backend, options);
    const fresh = store.sinks.filter((s) => !store.watermarks.has(s));
    if (fresh.length > 0 || format !== 'current') {
      const floor = store.firstOutboxSeq() - 1;
      for (const s of fresh) store.watermarks.set(s, floor);
      await backend.write((w) => {
        if (format !== 'current') writeFormat(w);
        for (const s of fresh) w.put('meta', SINK_PREFIX + s, packValue({ oseq: floor }));
      });
    }
    return store;
  }

  /** A store over a backend opened read-only: reads only. */
  static readOnly(backend: KvBackend): StateStore {
    checkFormat(backend);
    return new StateStore(backend, {});
  }

  /** The last journal sequence handed out (committed or in flight). */
  get lastSeq(): number {
    return this.counters.last_seq;
  }

  get lastOseq(): number {
    return this.counters.last_oseq;
  }

  /** Ordinal the next input event will get; stable across restarts (see `resultIdForInput`). */
  get nextInputOrdinal(): number {
    return this.counters.input_ordinal;
  }

  /**
   * Journal records, outbox entries, input position and idempotency answer of one batch, in one
   * write transaction. Resolves once durable. Sequences are assigned before this returns.
   */
  async commitBatch(batch: CommitBatch): Promise<CommitResult> {
    const idem = batch.idempotency;
    if (idem !== undefined && this.lookupIdempotency(idem.key, idem.at) !== undefined) {
      throw new Error('idempotency key already committed');
    }
    const before = this.counters;
    const drafts = batch.outbox ?? [];
    const journal = batch.records.length > 0 ? encodeJournalBatch(before.last_seq + 1, batch.records) : undefined;
    const outbox = drafts.length > 0 ? encodeOutboxBatch(before.last_oseq + 1, drafts, batch.outboxLines) : undefined;
    const after: Counters = {
      last_seq: before.last_seq + batch.records.length,
      last_oseq: before.last_oseq + drafts.length,
      input_ordinal: before.input_ordinal + (batch.input?.count ?? 0),
      idempotency_seq: before.idempotency_seq + (idem !== undefined ? 1 : 0),
    };
    this.counters = after;
    const source = batch.input?.source;
    const position = source !== undefined ? packValue({ position: batch.input?.position }) : undefined;
    const written = this.backend.write((w) => {
      if (journal !== undefined) w.put('journal', after.last_seq, journal);
      if (outbox !== undefined) w.put('outbox', after.last_oseq, outbox);
      if (source !== undefined && position !== undefined) w.put('meta', POSITION_PREFIX + source, position);
      if (idem !== undefined) {
        w.put('idempotency', idem.key, packValue({ answer: idem.answer, at: idem.at, n: after.idempotency_seq }));
        w.put('idempotency_order', after.idempotency_seq, packValue({ key: idem.key, at: idem.at }));
        this.pruneIdempotency(w, after.idempotency_seq, idem.at);
      }
      for (const p of batch.puts ?? []) w.put(p.table, p.key, p.value);
      w.put('meta', COUNTERS_KEY, packValue(after));
    });
    if (idem !== undefined) {
      const answer = idem.answer;
      const settled = written.then(() => answer);
      // Only a duplicate request awaits this; a failed commit is reported through `written`.
      settled.catch(() => undefined);
      this.pendingIdempotency.set(idem.key, settled);
      void written.finally(() => this.pendingIdempotency.delete(idem.key)).catch(() => undefined);
    }
    await written;
    this.crash('after-commit');
    return { firstSeq: before.last_seq + 1, lastSeq: after.last_seq, firstOseq: before.last_oseq + 1, lastOseq: after.last_oseq };
  }

  /** A request with this key was committed (or is being committed) within the retention window. */
  lookupIdempotency(key: string, now: number): IdempotencyLookup | undefined {
    const pending = this.pendingIdempotency.get(key);
    if (pending !== undefined) return { status: 'pending', answer: pending };
    const bytes = this.backend.get('idempotency', key);
    const entry = bytes === undefined ? undefined : idempotencyCodec.decode(bytes);
    if (entry === undefined || entry.at + this.retention.maxAgeMs < now) return undefined;
    return { status: 'committed', answer: entry.answer };
  }

  inputPosition(source: string): unknown {
    const bytes = this.backend.get('meta', POSITION_PREFIX + source);
    return bytes === undefined ? undefined : positionCodec.decode(bytes)?.position;
  }

  /** Every stored input position by source. */
  inputPositions(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const { key, value } of this.backend.range('meta', { start: POSITION_PREFIX, end: 'pos;' })) {
      const p = positionCodec.decode(value);
      if (typeof key === 'string' && p !== undefined) out[key.slice(POSITION_PREFIX.length)] = p.position;
    }
    return out;
  }

  /** The last outbox sequence `sink` has delivered. */
  watermark(sink: string): number {
    return this.watermarks.get(sink) ?? this.firstOutboxSeq() - 1;
  }

  /** Sinks with a stored watermark and the configured ones. */
  knownSinks(): string[] {
    return [...new Set([...this.sinks, ...this.watermarks.keys()])].sort();
  }

  /** Up to `limit` entries after `sink`'s watermark, in order. */
  readOutbox(sink: string, limit: number): OutboxEntry[] {
    const from = this.watermark(sink) + 1;
    const out: OutboxEntry[] = [];
    if (limit <= 0) return out;
    for (const batch of outboxBatches(this.backend, from, this.outboxFloor)) {
      for (let i = Math.max(0, from - batch.first); i < batch.ids.length; i++) {
        out.push({ oseq: batch.first + i, result_id: batch.ids[i] as string, payload: batch.payloads[i] });
        if (out.length === limit) return out;
      }
    }
    return out;
  }

  /** The first retained outbox entry whose `result_id` is `resultId`, after `sink`'s watermark. */
  findOutboxSeq(sink: string, resultId: string): number | undefined {
    const from = this.watermark(sink) + 1;
    for (const batch of outboxBatches(this.backend, from, this.outboxFloor)) {
      for (let i = Math.max(0, from - batch.first); i < batch.ids.length; i++) {
        if (batch.ids[i] === resultId) return batch.first + i;
      }
    }
    return undefined;
  }

  /**
   * Records that `sink` has written everything up to `oseq`, and prunes batches every configured
   * sink has. Lower or repeated acknowledgements are ignored.
   *
   * The watermark moves at once; its write is queued behind the commits before it and coalesced
   * with other acknowledgements, without waiting for it to reach disk: a crash may lose the last
   * few, which re-delivers those entries (at-least-once; the file sink's reconcile skips what the
   * file already holds). `close` waits for the write. A failed write is thrown by the next call.
   */
  async ackDelivered(sink: string, oseq: number): Promise<void> {
    const failure = this.ackFailure;
    if (failure !== undefined) {
      this.ackFailure = undefined;
      throw failure;
    }
    if (oseq <= this.watermark(sink)) return;
    if (oseq > this.counters.last_oseq) throw new RangeError(`outbox sequence ${oseq} was never assigned`);
    this.watermarks.set(sink, oseq);
    this.unsavedWatermarks.add(sink);
    if (this.ackQueued) return;
    this.ackQueued = true;
    this.ackWrite = this.backend
      .write((w) => {
        this.ackQueued = false;
        for (const s of this.unsavedWatermarks) w.put('meta', SINK_PREFIX + s, packValue({ oseq: this.watermark(s) }));
        this.unsavedWatermarks.clear();
        this.pruneOutbox(w, this.deliveredFloor());
      })
      .catch((error: unknown) => {
        this.ackFailure = error instanceof Error ? error : new Error(String(error));
        // What that write carried is not stored: the next one writes every watermark again.
        for (const s of this.watermarks.keys()) this.unsavedWatermarks.add(s);
      });
  }

  /**
   * Writes a snapshot of states as of journal sequence `seq` (encoded before this returns), keeps
   * the previous one as a fallback, deletes the journal that only the dropped snapshots needed,
   * and prunes delivered outbox entries. Returns false when a snapshot at `seq` already exists.
   */
  async writeSnapshot(input: SnapshotInput): Promise<boolean> {
    const existing = listSnapshots(this.backend);
    if (existing[0]?.seq === input.seq) return false;
    if (input.seq > this.counters.last_seq) throw new RangeError(`snapshot at ${input.seq} is past the journal (${this.counters.last_seq})`);
    const encoded = encodeSnapshot(input, this.chunkSize);
    const keep = existing.find((s) => s.seq < input.seq)?.seq;
    const floor = this.sinks.length > 0 ? this.deliveredFloor() : this.counters.last_oseq;
    await this.backend.write((w) => {
      writeSnapshotTables(w, encoded, keep, () => this.crash('mid-snapshot'));
      // The previous snapshot stays usable: keep the journal after it.
      if (keep !== undefined && keep > this.journalFloor) {
        w.removeRange('journal', { end: keep + 1 });
        w.put('meta', JOURNAL_FLOOR_KEY, packValue({ through: keep }));
        this.journalFloor = keep;
      }
      this.pruneOutbox(w, floor);
    });
    return true;
  }

  /**
   * The newest snapshot that can be read and whose journal tail is complete (or initial states at
   * sequence 0 when the journal still starts at 1). Throws `StateCorruptionError` when none is
   * usable, unless `mode` is `skip`: then replay starts from initial states after the gap.
   */
  loadSnapshotBase(mode: RecoverMode): SnapshotBase {
    const unreadable: number[] = [];
    const firstJournal = this.firstJournalSeq();
    const complete = (seq: number): boolean => (firstJournal === undefined ? seq >= this.counters.last_seq : firstJournal <= seq + 1);
    for (const c of listSnapshots(this.backend)) {
      const chunks = c.header !== undefined && complete(c.seq) ? loadSnapshotChunks(this.backend, c.header) : undefined;
      if (c.header !== undefined && chunks !== undefined) return { snapshot: { header: c.header, chunks }, unreadable, seq: c.seq };
      unreadable.push(c.seq);
    }
    if (complete(0)) return { snapshot: undefined, unreadable, seq: 0 };
    const newest = unreadable[0] ?? 0;
    if (mode === 'fail') {
      throw new StateCorruptionError('snapshot_unreadable', newest, `no usable snapshot: snapshot ${newest} is unreadable and the journal before ${firstJournal ?? this.counters.last_seq + 1} is gone`);
    }
    return { snapshot: undefined, unreadable, seq: (firstJournal ?? this.counters.last_seq + 1) - 1 };
  }

  /**
   * Visits journal records after `fromSeq` in order. An unreadable record stops replay with a
   * `StateCorruptionError` naming its sequence, unless `mode` is `skip`. Records are stored a
   * committed batch per value, so damage takes the whole batch: it is named by its first sequence
   * and skipped whole. At most `limit` records are read, so long replays can yield between slices.
   */
  replay(fromSeq: number, visit: (record: JournalRecord) => void, mode: RecoverMode, limit = Infinity): ReplayStats {
    const skipped: number[] = [];
    let replayed = 0;
    let read = 0;
    let lastSeq = fromSeq;
    for (const batch of journalBatches(this.backend, fromSeq, this.journalFloor)) {
      if (read >= limit) break;
      const records = batch.records;
      if (records === undefined) {
        // An unreadable batch is passed over whole: its records cannot be told apart.
        if (mode === 'fail') {
          throw new StateCorruptionError('journal_record_unreadable', batch.first, `journal record ${batch.first} is unreadable (with the rest of its batch, through ${batch.last}; start with --state-recover skip to skip them)`);
        }
        for (let seq = Math.max(batch.first, fromSeq + 1); seq <= batch.last; seq++) skipped.push(seq);
        read += batch.last - Math.max(batch.first, fromSeq + 1) + 1;
        lastSeq = batch.last;
        continue;
      }
      for (let i = Math.max(0, fromSeq + 1 - batch.first); i < records.length && read < limit; i++) {
        const record = records[i] as JournalRecord;
        visit(record);
        replayed++;
        read++;
        lastSeq = record.seq;
      }
    }
    return { replayed, skipped, lastSeq };
  }

  /** The first retained journal sequence (records of a batch straddling the pruned floor do not count). */
  firstJournalSeq(): number | undefined {
    return firstNumberKey(this.backend, 'journal') === undefined ? undefined : this.journalFloor + 1;
  }

  /**
   * The first retained outbox sequence; `lastOseq + 1` when the outbox is empty. What every
   * configured sink has acknowledged counts as pruned at once, before its write lands.
   */
  firstOutboxSeq(): number {
    if (firstNumberKey(this.backend, 'outbox') === undefined) return this.counters.last_oseq + 1;
    return (this.sinks.length > 0 ? Math.max(this.outboxFloor, this.deliveredFloor()) : this.outboxFloor) + 1;
  }

  idempotencyKeyCount(): number {
    const first = firstNumberKey(this.backend, 'idempotency_order');
    return first === undefined ? 0 : this.counters.idempotency_seq - first + 1;
  }

  async close(): Promise<void> {
    await this.ackWrite;
    await this.backend.close();
  }

  /** Drops the batches wholly at or below `floor`, and records the floor. */
  private pruneOutbox(w: KvWriter, floor: number): void {
    if (floor <= this.outboxFloor) return;
    w.removeRange('outbox', { end: floor + 1 });
    w.put('meta', OUTBOX_FLOOR_KEY, packValue({ through: floor }));
    this.outboxFloor = floor;
  }

  /** Highest sequence every configured sink has delivered. */
  private deliveredFloor(): number {
    let floor = this.counters.last_oseq;
    for (const s of this.sinks) floor = Math.min(floor, this.watermarks.get(s) ?? this.outboxFloor);
    return floor;
  }

  private pruneIdempotency(w: KvWriter, newest: number, now: number): void {
    for (const { key, value } of this.backend.range('idempotency_order', { limit: IDEMPOTENCY_PRUNE_PER_COMMIT })) {
      const n = typeof key === 'number' ? key : -1;
      const order = idempotencyOrderCodec.decode(value);
      const expired = order === undefined || n <= newest - this.retention.maxKeys || order.at + this.retention.maxAgeMs < now;
      if (!expired) return;
      w.remove('idempotency_order', key);
      if (order === undefined) continue;
      const current = this.backend.get('idempotency', order.key);
      // A key re-used after it expired belongs to its newer entry.
      if (current !== undefined && idempotencyCodec.decode(current)?.n === n) w.remove('idempotency', order.key);
    }
  }
}

function readFloor(backend: KvBackend, key: string): number {
  const bytes = backend.get('meta', key);
  return (bytes === undefined ? undefined : floorCodec.decode(bytes)?.through) ?? 0;
}

/** Counters as stored, never behind what the tables show (a damaged counters value is survivable). */
function readCounters(backend: KvBackend): Counters {
  const bytes = backend.get('meta', COUNTERS_KEY);
  const stored = (bytes === undefined ? undefined : countersCodec.decode(bytes)) ?? { last_seq: 0, last_oseq: 0, input_ordinal: 0, idempotency_seq: 0 };
  const newestSnapshot = listSnapshots(backend)[0]?.seq ?? 0;
  return {
    ...stored,
    last_seq: Math.max(stored.last_seq, lastNumberKey(backend, 'journal'), newestSnapshot),
    last_oseq: Math.max(stored.last_oseq, lastNumberKey(backend, 'outbox')),
  };
}
