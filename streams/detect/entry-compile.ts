// A cold build's compile and store, run on a worker thread (entry-worker.ts) so that the main thread only
// ever builds from the stored entry: after a cold start it holds what a warm start holds.
import { Worker } from 'node:worker_threads';
import type { RuleInputs } from './rule-inputs.js';

export interface EntryWorkerData {
  readonly inputs: RuleInputs;
  readonly dir: string;
}

export interface EntryWorkerReply {
  /** The entry's bytes in shared memory; undefined when the build found problems. */
  readonly entry: Uint8Array | undefined;
  readonly storeError?: string;
}

const ENTRY_WORKER = new URL('./entry-worker.js', import.meta.url);

/**
 * Compile `inputs` and store their entry in `dir` on a worker thread. Resolves with the worker's reply, or
 * undefined when the worker could not run or failed (the caller then compiles on its own thread).
 */
export function compileEntryOffThread(inputs: RuleInputs, dir: string, script: URL = ENTRY_WORKER): Promise<EntryWorkerReply | undefined> {
  // An entry passed along for other inputs is no use to the compile.
  const { shared, ...own } = inputs;
  const data: EntryWorkerData = { inputs: own, dir };
  return new Promise((resolve) => {
    let reply: EntryWorkerReply | undefined;
    const worker = new Worker(script, { workerData: data });
    worker.once('message', (m: EntryWorkerReply) => {
      reply = m;
      void worker.terminate();
    });
    worker.once('error', () => undefined);
    worker.once('exit', () => resolve(reply));
  });
}
