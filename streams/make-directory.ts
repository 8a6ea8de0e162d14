import { mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

/** Creates `dir` when its parent exists; the ENOENT error when the parent does not. */
function makeOne(dir: string): Error | undefined {
  try {
    mkdirSync(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' && statSync(dir).isDirectory()) return undefined;
    if (code === 'ENOENT') return error as Error;
    throw error;
  }
  return undefined;
}

/**
 * `mkdir -p` that always ends. Node 20's own (`mkdir(dir, { recursive: true })`, sync and async) retries
 * forever in native code when a relative path cannot be created because the working directory was deleted
 * (`mkdir("data/rule-cache")`, `mkdir("data")`, both ENOENT, round and round): a daemon whose directory was
 * removed under it spun at 100 % CPU and could not take SIGTERM. Here each ancestor is tried once.
 */
export function makeDirectory(dir: string): void {
  const missing = makeOne(dir);
  if (missing === undefined) return;
  const parent = dirname(dir);
  if (parent === dir) throw missing;
  makeDirectory(parent);
  const still = makeOne(dir);
  if (still !== undefined) throw still;
}
