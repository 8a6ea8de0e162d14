// state/: the only module that opens LMDB. Layers, bottom up: `StateStore` (journal, outbox, sink
// watermarks, snapshots, input positions, idempotency keys over LMDB or memory), the registry of
// journaled kinds with `recover` (snapshot + journal replay into each kind's host at start-up) and
// `snapshotKinds`, delivery helpers for sinks, `inspectStateDir` for `sigmad state inspect`, and
// `compactStateDir` for `sigmad state compact`.
export { AuditTrail,   } from './audit-trail.js';
export { verifyAuditDir } from './verify-audit-dir.js';
export { compactStateDir } from './compact-state-dir.js';
export { noCrash } from './crash-points.js';
export type { CrashHook, CrashPoint } from './crash-points.js';
export { lastResultIdInFile, scanFileTail } from './file-tail.js';
export { createKindRegistry, DEFINITIONS_KIND } from './journaled-kind.js';
export type { AnyJournaledKind, JournaledKind, KindRegistry, ReplayOutcome, SnapshotCodec } from './journaled-kind.js';
export { inspectStateDir, inspectStore, StateReport } from './inspect-state.js';
export { MemoryBackend } from './memory-backend.js';
export { openLmdbStateStore, openMemoryStateStore } from './open-state-store.js';
export { deliverOutboxOnce, reconcileFileSink } from './outbox-delivery.js';
export { Utf8Lines } from './outbox-lines.js';
export type { ResultBodies } from './outbox-lines.js';
export { DefinitionHashes, JournalRecord, OutboxEntry, SnapshotChunk,  } from './records.js';
export type { JournalDraft, OutboxDraft } from './records.js';
export { recover, snapshotKinds } from './recover.js';
export type { Recovered } from './recover.js';
export type { RecoverProgress } from './replay-slices.js';
export { resultIdForHit, resultIdForInput, resultIdForStream, resultIdForTimer, streamSequenceOf } from './result-id.js';
export { decideSnapshot } from './snapshot-policy.js';
export type { SnapshotPolicy } from './snapshot-policy.js';
export { StateCorruptionError } from './state-errors.js';
export {  StateDirError } from './state-dir-probe.js';
export { StateFormatError } from './state-format.js';
export { SourceCache } from './source-cache.js';
export type { CachedSourceValue } from './source-cache.js';
export { StateStore } from './state-store.js';
export type { CommitResult, StateStoreOptions } from './state-store.js';
