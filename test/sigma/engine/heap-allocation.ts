// Heap bytes a function allocates per call, measured so that garbage cannot hide: a full GC (forced
// through --expose-gc, switched on at run time) empties the young generation before each short run,
// and each run allocates far less than a young-generation semi-space at ~100 B per call, so no
// scavenge frees anything before heapUsed is read. The median run is the answer, so a stray
// allocation by V8 itself in one run does not count either.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');
// Optimised code is compiled on the calling thread, so the warm-up ends in it even when the cores are busy
// (a background compile may still be queued after the warm-up on a loaded machine).
setFlagsFromString('--no-concurrent-recompilation');
setFlagsFromString('--no-concurrent-osr');
// A fresh context reads the flag when it is created: its global `gc` is the collector.
const gc = runInNewContext('gc') as () => void;

/** A full garbage collection, for tests that compare heap readings. */
export const collectGarbage = gc;

const CALLS_PER_RUN = 1_000;
const RUNS = 21;
const ATTEMPTS = 5;

/**
 * The smallest of up to ATTEMPTS measurements, each after its own warm-up: code that allocates nothing
 * once optimised is judged by its optimised form, however long a busy machine takes to get there, while
 * code that allocates on every call still shows it in every attempt.
 */
export function bytesPerCall(fn: () => unknown, warmup = 20_000): number {
  let best = Infinity;
  for (let a = 0; a < ATTEMPTS && best >= 1; a++) best = Math.min(best, medianBytesPerCall(fn, warmup));
  return best;
}

function medianBytesPerCall(fn: () => unknown, warmup: number): number {
  for (let i = 0; i < warmup; i++) fn();
  const perRun: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < CALLS_PER_RUN; i++) fn();
    perRun.push((process.memoryUsage().heapUsed - before) / CALLS_PER_RUN);
  }
  perRun.sort((a, b) => a - b);
  return perRun[RUNS >> 1] as number;
}
