// state/: the only module that opens LMDB. Layers, bottom up: `StateStore` (journal, outbox, sink
// watermarks, snapshots, input positions, idempotency keys over LMDB or memory), `recover` and
// `ActorHost` (actor states from snapshot + journal, live dispatch and commit), delivery helpers
// for sinks, `inspectStateDir` for `sigmad state inspect`, and `compactStateDir` for `sigmad state compact`.
export { ActorHost } from './actor-host.js';
export type { ActorHostOptions, DefinitionUpdate } from './actor-host.js';
export { applyTransition, countStates, createKindRegistry, createStateMaps, DEFINITIONS_KIND } from './actor-states.js';
export type { KindRegistry, StateMaps } from './actor-states.js';
export { compactStateDir } from './compact-state-dir.js';
export type { CompactionResult } from './compact-state-dir.js';
export { noCrash } from './crash-points.js';
export type { CrashHook, CrashPoint } from './crash-points.js';
export { decideDefinitionChange, dropChangedDefinitions, hasDefinitionChange, isDefinitionsEvent } from './definitions.js';
export type { DefinitionChange, DefinitionsEvent } from './definitions.js';
export { lastResultIdInFile, scanFileTail } from './file-tail.js';
export type { FileTail } from './file-tail.js';
export { inspectStateDir, inspectStore, StateReport } from './inspect-state.js';
export { MemoryBackend } from './memory-backend.js';
export { openLmdbStateStore, openMemoryStateStore } from './open-state-store.js';
export { deliverOutboxOnce, reconcileFileSink } from './outbox-delivery.js';
export type { DeliverOptions } from './outbox-delivery.js';
export { DefinitionHashes, JournalRecord, OutboxEntry, SnapshotChunk, SnapshotHeader } from './records.js';
export type { JournalDraft, OutboxDraft } from './records.js';
export { recover } from './recover.js';
export type { Recovered, RecoverOptions, RecoverStats } from './recover.js';
export { replayInSlices } from './replay-slices.js';
export type { RecoverProgress, ReplaySliceOptions } from './replay-slices.js';
export { resultIdForInput, resultIdForTimer } from './result-id.js';
export { decideSnapshot, DEFAULT_SNAPSHOT_POLICY } from './snapshot-policy.js';
export type { SnapshotPolicy, SnapshotReason } from './snapshot-policy.js';
export type { SnapshotInput, SnapshotKindInput } from './snapshot-tables.js';
export { StateCorruptionError } from './state-errors.js';
export type { StateCorruptionCode } from './state-errors.js';
export { StateFormatError } from './state-format.js';
export { StateStore } from './state-store.js';
export type {
  CommitBatch,
  CommitResult,
  IdempotencyLookup,
  IdempotencyRetention,
  RecoverMode,
  ReplayStats,
  SnapshotBase,
  StateStoreOptions,
} from './state-store.js';
