import Type from 'typebox';

/**
 * Stored shapes of the state environment. Every value is msgpack of one of these; the store checks
 * the shape on read, so a damaged value is reported by name instead of poisoning state.
 */

const Seq = Type.Integer({ minimum: 0 });

/** One journaled transition input: actor `kind`/`key` received `event` at batch time `at` (ms). */
export const JournalRecord = Type.Object({
  seq: Seq,
  at: Type.Number(),
  kind: Type.String(),
  key: Type.String(),
  event: Type.Unknown(),
});
export type JournalRecord = Type.Static<typeof JournalRecord>;

/**
 * One committed batch's journal records, sequences `first` to the key's, in order. Stored at
 * `journal[last seq]`: one value per batch instead of one per record (fewer LMDB operations to
 * write, prune and replay); "the batch holding `s`" is the first key >= `s`.
 */
export const JournalBatch = Type.Object({ first: Seq, records: Type.Array(JournalRecord) });
export type JournalBatch = Type.Static<typeof JournalBatch>;

/** A journal record before the store gives it its sequence number. */
export type JournalDraft = Omit<JournalRecord, 'seq'>;

/** A result waiting for delivery; `oseq` orders the outbox and is what sink watermarks count. */
export const OutboxEntry = Type.Object({
  oseq: Seq,
  result_id: Type.String(),
  payload: Type.Unknown(),
});
export type OutboxEntry = Type.Static<typeof OutboxEntry>;

export type OutboxDraft = Omit<OutboxEntry, 'oseq'>;

/**
 * One committed batch's results: entry `i` has outbox sequence `first + i`. Stored at
 * `outbox[last oseq]` like journal batches; sink watermarks still count single results.
 */
export const OutboxBatch = Type.Object({ first: Seq, ids: Type.Array(Type.String()), payloads: Type.Array(Type.Unknown()) });
export type OutboxBatch = Type.Static<typeof OutboxBatch>;

/** Everything at or below `through` is pruned, though a batch straddling it stays stored. */
export const PrunedFloor = Type.Object({ through: Seq });

/**
 * Layout version of a state directory, in `meta["format"]`. 1 (no key): a value per journal record
 * and per outbox entry. 2: a value per committed batch in both tables, plus pruned floors. 3: as 2,
 * with journal batches in msgpackr's record encoding (`packRows`). A format 2 directory reads as it is
 * (its plain maps decode the same) and is marked 3 when opened for writing.
 */
export const STATE_FORMAT = 3;
/** Formats this build reads (older ones as they are, without conversion). */
export const READABLE_FORMATS: readonly number[] = [2, STATE_FORMAT];
export const StateFormat = Type.Object({ version: Type.Integer({ minimum: 1 }) });

/** Monotonic counters, rewritten by every commit so they survive pruning of the tables they count. */
export const Counters = Type.Object({
  last_seq: Seq,
  last_oseq: Seq,
  input_ordinal: Seq,
  idempotency_seq: Seq,
});
export type Counters = Type.Static<typeof Counters>;

export const Watermark = Type.Object({ oseq: Seq });

export const InputPosition = Type.Object({ position: Type.Unknown() });

export const IdempotencyEntry = Type.Object({ answer: Type.Unknown(), at: Type.Number(), n: Seq });
export type IdempotencyEntry = Type.Static<typeof IdempotencyEntry>;

export const IdempotencyOrder = Type.Object({ key: Type.String(), at: Type.Number() });

/** Compiled definition hash per definition group (e.g. `corr:<rule-id>` → hash). */
export const DefinitionHashes = Type.Record(Type.String(), Type.String());
export type DefinitionHashes = Type.Static<typeof DefinitionHashes>;

export const SNAPSHOT_FORMAT = 1;

/** Written last in its transaction: a snapshot without a header is an interrupted write. */
export const SnapshotHeader = Type.Object({
  format: Type.Integer(),
  seq: Seq,
  at: Type.Number(),
  chunks: Type.Integer({ minimum: 0 }),
  kinds: Type.Record(Type.String(), Type.Object({ version: Type.Integer(), count: Type.Integer({ minimum: 0 }) })),
  definitions: DefinitionHashes,
});
export type SnapshotHeader = Type.Static<typeof SnapshotHeader>;

/** Up to a fixed number of one kind's encoded states: `[actor key, codec output]`. */
export const SnapshotChunk = Type.Object({
  kind: Type.String(),
  entries: Type.Array(Type.Tuple([Type.String(), Type.Unknown()])),
});
export type SnapshotChunk = Type.Static<typeof SnapshotChunk>;
