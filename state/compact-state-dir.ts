import { mkdtemp, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { LmdbBackend } from './lmdb-backend.js';

export interface CompactionResult {
  readonly beforeBytes: number;
  readonly afterBytes: number;
}

/**
 * Rewrites the environment at `dir` without free pages (LMDB never shrinks its file; deleting old
 * journal only makes space reusable, so the file stays at its peak live size). Only while no
 * process has it open: `sigmad state compact` with the daemon stopped. The daemon does not run it
 * at start-up: nothing stops another process from having the environment open then, and a copy of
 * the whole environment on every start (crash restarts included) would lengthen the time it is
 * not ready, for space LMDB reuses anyway.
 */
export async function compactStateDir(dir: string): Promise<CompactionResult> {
  const backend = new LmdbBackend(dir);
  const beforeBytes = backend.sizeBytes();
  const target = await mkdtemp(join(dir, 'compact-'));
  try {
    await backend.copyCompacted(target);
  } finally {
    await backend.close();
  }
  // Same filesystem, so the swap is one atomic rename.
  await rename(join(target, 'data.mdb'), join(dir, 'data.mdb'));
  await rm(target, { recursive: true, force: true });
  return { beforeBytes, afterBytes: (await stat(join(dir, 'data.mdb'))).size };
}
