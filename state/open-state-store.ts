import { LmdbBackend } from './lmdb-backend.js';
import { MemoryBackend } from './memory-backend.js';
import { probeStateDir, StateDirError } from './state-dir-probe.js';
import { StateStore } from './state-store.js';
import type { StateStoreOptions } from './state-store.js';

/** `--state-db DIR`: the LMDB environment at `dir` (created when missing). */
export async function openLmdbStateStore(dir: string, options: StateStoreOptions = {}): Promise<StateStore> {
  const problem = probeStateDir(dir);
  if (problem !== undefined) throw new StateDirError(problem);
  const backend = new LmdbBackend(dir);
  try {
    return await StateStore.open(backend, options);
  } catch (error) {
    await backend.close();
    throw error;
  }
}

/**
 * No `--state-db`: the same journal, outbox and snapshot semantics in memory, so the daemon always
 * takes one path. Passing a `backend` again reopens it (tests simulate a restart this way).
 */
export function openMemoryStateStore(options: StateStoreOptions & { readonly backend?: MemoryBackend } = {}): Promise<StateStore> {
  return StateStore.open(options.backend ?? new MemoryBackend(), options);
}
