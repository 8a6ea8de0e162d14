import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Type from 'typebox';
import { LmdbBackend } from './lmdb-backend.js';
import { listSnapshots } from './snapshot-tables.js';
import { StateStore } from './state-store.js';

/** What `sigmad state inspect` prints (snake_case, like every key we print). */
export const StateReport = Type.Object({
  snapshot: Type.Union([Type.Object({ seq: Type.Integer(), at: Type.Number(), previous_seq: Type.Union([Type.Integer(), Type.Null()]) }), Type.Null()]),
  journal: Type.Object({ length: Type.Integer(), first_seq: Type.Union([Type.Integer(), Type.Null()]), last_seq: Type.Integer() }),
  outbox: Type.Object({ length: Type.Integer(), last_oseq: Type.Integer(), backlog: Type.Record(Type.String(), Type.Integer()) }),
  /** Instances per actor kind in the newest snapshot (the journal after it is not folded in). */
  states: Type.Record(Type.String(), Type.Integer()),
  definitions: Type.Integer(),
  input_ordinal: Type.Integer(),
  input_positions: Type.Record(Type.String(), Type.Unknown()),
  idempotency_keys: Type.Integer(),
  size_bytes: Type.Integer(),
});
export type StateReport = Type.Static<typeof StateReport>;

export function inspectStore(store: StateStore): StateReport {
  const snaps = listSnapshots(store.backend);
  const newest = snaps[0];
  const firstSeq = store.firstJournalSeq();
  const firstOseq = store.firstOutboxSeq();
  const backlog: Record<string, number> = {};
  for (const sink of store.knownSinks()) backlog[sink] = store.lastOseq - Math.max(store.watermark(sink), firstOseq - 1);
  const states: Record<string, number> = {};
  for (const [kind, meta] of Object.entries(newest?.header?.kinds ?? {})) states[kind] = meta.count;
  return {
    snapshot: newest === undefined ? null : { seq: newest.seq, at: newest.header?.at ?? 0, previous_seq: snaps[1]?.seq ?? null },
    journal: { length: firstSeq === undefined ? 0 : store.lastSeq - firstSeq + 1, first_seq: firstSeq ?? null, last_seq: store.lastSeq },
    outbox: { length: store.lastOseq + 1 - firstOseq, last_oseq: store.lastOseq, backlog },
    states,
    definitions: Object.keys(newest?.header?.definitions ?? {}).length,
    input_ordinal: store.nextInputOrdinal,
    input_positions: store.inputPositions(),
    idempotency_keys: store.idempotencyKeyCount(),
    size_bytes: store.backend.sizeBytes(),
  };
}

/** Opens `dir` read-only (safe while the daemon runs) and reports on it. */
export async function inspectStateDir(dir: string): Promise<StateReport> {
  if (!existsSync(join(dir, 'data.mdb'))) throw new Error(`no state database in ${dir}`);
  const backend = new LmdbBackend(dir, { readOnly: true });
  let store: StateStore;
  try {
    store = StateStore.readOnly(backend);
  } catch (error) {
    await backend.close();
    throw error;
  }
  try {
    return inspectStore(store);
  } finally {
    await store.close();
  }
}
