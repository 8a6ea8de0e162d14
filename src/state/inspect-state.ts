import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { LmdbBackend } from './lmdb-backend.js';
import { listSnapshots } from './snapshot-tables.js';
import { StateStore } from './state-store.js';

/** What `sigmad state inspect` prints (snake_case, like every key we print). */
export interface StateReport {
  readonly snapshot: { readonly seq: number; readonly at: number; readonly previous_seq: number | null } | null;
  readonly journal: { readonly length: number; readonly first_seq: number | null; readonly last_seq: number };
  readonly outbox: { readonly length: number; readonly last_oseq: number; readonly backlog: Readonly<Record<string, number>> };
  /** Instances per actor kind in the newest snapshot (the journal after it is not folded in). */
  readonly states: Readonly<Record<string, number>>;
  readonly definitions: number;
  readonly input_ordinal: number;
  readonly input_positions: Readonly<Record<string, unknown>>;
  readonly idempotency_keys: number;
  readonly size_bytes: number;
}

export function inspectStore(store: StateStore): StateReport {
  const snaps = listSnapshots(store.backend);
  const newest = snaps[0];
  const firstSeq = store.firstJournalSeq();
  const firstOseq = store.lastOseq + 1 - outboxLength(store);
  const backlog: Record<string, number> = {};
  for (const sink of store.knownSinks()) backlog[sink] = store.lastOseq - Math.max(store.watermark(sink), firstOseq - 1);
  const states: Record<string, number> = {};
  for (const [kind, meta] of Object.entries(newest?.header?.kinds ?? {})) states[kind] = meta.count;
  return {
    snapshot: newest === undefined ? null : { seq: newest.seq, at: newest.header?.at ?? 0, previous_seq: snaps[1]?.seq ?? null },
    journal: { length: firstSeq === undefined ? 0 : store.lastSeq - firstSeq + 1, first_seq: firstSeq ?? null, last_seq: store.lastSeq },
    outbox: { length: outboxLength(store), last_oseq: store.lastOseq, backlog },
    states,
    definitions: Object.keys(newest?.header?.definitions ?? {}).length,
    input_ordinal: store.nextInputOrdinal,
    input_positions: store.inputPositions(),
    idempotency_keys: store.idempotencyKeyCount(),
    size_bytes: store.backend.sizeBytes(),
  };
}

function outboxLength(store: StateStore): number {
  for (const { key } of store.backend.range('outbox', { limit: 1 })) return typeof key === 'number' ? store.lastOseq - key + 1 : 0;
  return 0;
}

/** Opens `dir` read-only (safe while the daemon runs) and reports on it. */
export async function inspectStateDir(dir: string): Promise<StateReport> {
  if (!existsSync(join(dir, 'data.mdb'))) throw new Error(`no state database in ${dir}`);
  const store = StateStore.readOnly(new LmdbBackend(dir, { readOnly: true }));
  try {
    return inspectStore(store);
  } finally {
    await store.close();
  }
}
