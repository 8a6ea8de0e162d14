// `sigmad eval`'s chunk workers (issue 19 §3): started first, they load their code while the main
// thread reads the rules, build theirs while it builds its own (from its cache entry in shared memory:
// the rule texts, ≈ 4.7 MB for the corpus, are cloned to a worker only when it has none or the entry
// does not build there), and take chunks whenever they have room,
// from the moment they are sent the rules: a worker's first chunks wait in its queue while it builds, so
// it never idles until the main thread, busy with a chunk of its own, hears that it is ready. A chunk is
// pure work, so one a worker could not finish (it died, failed to build its rules, or was still building
// when the main thread needed the chunk) is simply detected again on the main thread.
import { Worker } from 'node:worker_threads';
import { CHUNK_WORKER_SCRIPT } from '../streams/index.js';
import type { ChunkResult, ChunkWorkerData, FromChunkWorker, RuleInputs, ToChunkWorker } from '../streams/index.js';

/** Chunks queued on a worker beside the one it detects, so that it never waits for the main thread. */
const QUEUE_PER_WORKER = 3;

interface Job {
  resolve(result: ChunkResult): void;
  reject(error: Error): void;
}

interface Slot {
  readonly worker: Worker;
  readonly jobs: Map<number, Job>;
  /** Sent the rules: it takes chunks (queued until it has built them). */
  loading: boolean;
  ready: boolean;
  /** Its chunks were taken back while it built: it takes no more until it is ready. */
  reclaimed: boolean;
  gone: boolean;
}

export interface ChunkPool {
  /** Chunks the workers may hold at once. */
  readonly capacity: number;
  /** The chunk's result from a worker with room, or undefined when none has (the caller detects it). */
  offer(bytes: Uint8Array, now: number): Promise<ChunkResult> | undefined;
  /**
   * Takes back the chunks queued on workers still building their rules (their results reject, so that
   * the caller detects them, never waiting on a build); those workers take no more until they are ready.
   */
  reclaim(): void;
  /** Send every worker the rules to build (once): main's cache entry when `inputs` has one, the texts otherwise. */
  load(inputs: RuleInputs): void;
  close(): Promise<void>;
}

/**
 * `onFailure` hears of a worker that could not build its rules or died (its chunks come back rejected).
 * `script`: the compiled worker entry (tests run this module from source).
 */
export function startChunkPool(workers: number, data: ChunkWorkerData, onFailure: (worker: number, error: string) => void, script = CHUNK_WORKER_SCRIPT): ChunkPool {
  let nextId = 0;
  const slots: Slot[] = [];
  /** What `load` was given: the texts for a worker whose entry did not build. */
  let loaded: RuleInputs | undefined;
  const rejectAll = (slot: Slot, error: string): void => {
    for (const job of slot.jobs.values()) job.reject(new Error(error));
    slot.jobs.clear();
  };
  const fail = (slot: Slot, index: number, error: string): void => {
    if (slot.gone) return;
    slot.gone = true;
    onFailure(index, error);
    rejectAll(slot, `detection worker ${String(index)}: ${error}`);
    void slot.worker.terminate();
  };
  for (let index = 0; index < workers; index++) {
    const slot: Slot = { worker: new Worker(script, { workerData: data }), jobs: new Map(), loading: false, ready: false, reclaimed: false, gone: false };
    slots.push(slot);
    slot.worker.on('message', (m: FromChunkWorker) => {
      if (m.type === 'loaded') slot.ready = true;
      else if (m.type === 'need_inputs') {
        // The texts without the entry that failed: the worker then reads the cache file or compiles.
        if (loaded === undefined) return;
        const { shared: _failed, ...inputs } = loaded;
        slot.worker.postMessage({ type: 'rules', inputs } satisfies ToChunkWorker);
      } else if (m.type === 'load_failed') fail(slot, index, m.error);
      else {
        const job = slot.jobs.get(m.id);
        slot.jobs.delete(m.id);
        if (m.type === 'done') job?.resolve(m.result);
        else job?.reject(new Error(m.error));
      }
    });
    slot.worker.on('error', (error) => fail(slot, index, error.message));
    slot.worker.on('exit', (code) => fail(slot, index, `exited with code ${String(code)}`));
  }
  return {
    capacity: workers * QUEUE_PER_WORKER,
    load(inputs) {
      loaded = inputs;
      const { shared } = inputs;
      // Schema routing builds more than the entry holds: those workers need the texts.
      const message: ToChunkWorker = shared !== undefined && inputs.routing === undefined ? { type: 'entry', settings: { correlation: inputs.correlation, emitReferenced: inputs.emitReferenced }, entry: shared } : { type: 'rules', inputs };
      for (const slot of slots) {
        if (slot.gone) continue;
        slot.worker.postMessage(message);
        slot.loading = true;
      }
    },
    offer(bytes, now) {
      let best: Slot | undefined;
      for (const s of slots) {
        const takes = s.ready || (s.loading && !s.reclaimed);
        if (takes && !s.gone && s.jobs.size < QUEUE_PER_WORKER && (best === undefined || s.jobs.size < best.jobs.size)) best = s;
      }
      if (best === undefined) return undefined;
      const id = nextId++;
      const slot = best;
      const message: ToChunkWorker = { type: 'chunk', id, bytes, now };
      // Copied, not transferred: the main thread keeps the bytes for a chunk it may have to detect itself.
      slot.worker.postMessage(message);
      return new Promise<ChunkResult>((resolve, reject) => slot.jobs.set(id, { resolve, reject }));
    },
    reclaim() {
      for (const slot of slots) {
        if (slot.ready || slot.gone || slot.jobs.size === 0) continue;
        // The worker still detects what it was sent; its answers find no job and are dropped.
        rejectAll(slot, 'taken back while the worker built its rules');
        slot.reclaimed = true;
      }
    },
    async close() {
      for (const slot of slots) slot.gone = true;
      await Promise.all(slots.map((s) => s.worker.terminate()));
    },
  };
}
