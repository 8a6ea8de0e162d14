// How many chunk workers `sigmad eval --detect-workers N|auto` starts beside the main thread.
import { statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { UsageError } from './load-pipelines.js';

/**
 * Below this input size `auto` stays on one thread. The main thread detects from the moment its rules
 * are built and a worker takes chunks once it has built its own (from the compiled-rule cache, about
 * as long as the main thread's build): a smaller input is done before a worker could help.
 */
const AUTO_MIN_BYTES = 32 * 1024 * 1024;
const AUTO_MAX_WORKERS = 4;

/**
 * Workers for `--detect-workers N|auto`: `auto` uses one per core besides this thread's (at most 4,
 * none on one core) for a file of at least 32 MiB, none for stdin or a smaller file.
 */
export function evalWorkerCount(setting: string | undefined, input: string, cores = availableParallelism()): number {
  if (setting === undefined || setting === 'auto') {
    if (input === '-' || cores <= 1 || statSync(input).size < AUTO_MIN_BYTES) return 0;
    return Math.min(AUTO_MAX_WORKERS, cores - 1);
  }
  const n = Number(setting);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`--detect-workers must be a non-negative integer or auto (got '${setting}')`);
  return n;
}
