// `--detect-workers N`: detection fanned out to worker threads. Each worker builds the rule set from
// main's compiled-rule cache entry when main has one (else, or when it does not build, from the texts
// main read); each batch goes whole to the least busy worker (the batch processor keeps
// `parallelism` batches in flight, so every worker has work); a worker that dies is replaced and its
// in-flight batches are evaluated again (a batch is pure, so nothing is lost or duplicated).
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import { ByteLines } from '../../protocol/index.js';
import type { UnitLines } from '../../protocol/index.js';
import type { RuleSet } from '../../sigma/index.js';
import type { DetectedBatch, DetectSettings } from './detect-batch.js';
import type { Detector } from './detector.js';
import type { RuleInputs } from './rule-inputs.js';
import type { DetectWorkerData, FromWorker, GenerationInputs, GenerationRules, ToWorker } from './worker-protocol.js';

/** A batch whose worker died this many times is failed instead of retried (a poison batch). */
const MAX_ATTEMPTS = 3;
/** A worker that dies this many times in a row without finishing a batch is not replaced again. */
const MAX_RESPAWNS = 3;
/** Batches queued on one worker ahead of the one it evaluates, so it never waits for main. */
const QUEUE_PER_WORKER = 2;

export interface WorkerPoolOptions {
  readonly workers: number;
  readonly settings: DetectSettings;
  readonly log: Logger;
  /** Test hook (`SVC_DETECT_CRASH_AT`): the first worker started throws on its n-th batch. */
  readonly crashAtBatch?: number;
  /** The compiled worker entry; defaults to the sibling `detect-worker.js`. */
  readonly script?: URL;
  /** The compiled-rule cache directory (`rule-cache.ts`): workers read what the main thread stored. */
  readonly ruleCache?: string;
  /** Aborting while the workers build their rules terminates them and rejects the start. */
  readonly signal?: AbortSignal;
}

interface Job {
  readonly id: number;
  readonly lines: UnitLines;
  readonly now: number;
  attempts: number;
  resolve(batch: DetectedBatch): void;
  reject(error: Error): void;
}

interface Slot {
  readonly index: number;
  worker: Worker;
  readonly jobs: Map<number, Job>;
  /** Deaths since the last finished batch; a slot past MAX_RESPAWNS is retired. */
  deaths: number;
  retired: boolean;
}

/**
 * What a worker is sent to build `g` from: main's cache entry for its texts (shared memory: nothing to
 * clone) unless schema routing needs the texts to build its other pipeline sets.
 */
function rulesOf(g: GenerationInputs): GenerationRules {
  const { shared, routing, correlation, emitReferenced } = g.inputs;
  return shared !== undefined && routing === undefined ? { gen: g.gen, entry: shared, correlation, emitReferenced } : g;
}

/** `g` with its texts only: the entry main shared did not build on a worker, so it is not offered again. */
function textsOf(g: GenerationInputs): GenerationInputs {
  const { shared: _failed, ...inputs } = g.inputs;
  return { gen: g.gen, inputs };
}

interface Pending {
  readonly gen: GenerationInputs;
  /** Slots that have not built it yet. */
  readonly waiting: Set<number>;
  resolve(): void;
  reject(error: Error): void;
}

/** Start `options.workers` workers on `inputs`; resolves once every one has built the rules. */
export async function startWorkerPool(inputs: RuleInputs, options: WorkerPoolOptions): Promise<Detector> {
  const log = options.log.child({ component: 'detect' });
  const script = options.script ?? new URL('./detect-worker.js', import.meta.url);
  let current: GenerationInputs = { gen: 0, inputs };
  let pending: Pending | undefined;
  let nextId = 0;
  let closing = false;
  /** Every worker built the first rules. */
  let ready = false;
  let crashAt = options.crashAtBatch;
  const slots: Slot[] = [];

  const send = (slot: Slot, m: ToWorker): void => slot.worker.postMessage(m);
  // Lines kept as bytes go as a copy of their span, transferred (main keeps the body for a tap or the
  // dead-letter queue, and for sending the batch again should the worker die); strings are cloned.
  const sendBatch = (slot: Slot, job: Job): void => {
    if (!(job.lines instanceof ByteLines)) return send(slot, { type: 'batch', id: job.id, lines: job.lines, now: job.now });
    const { bytes, bounds } = job.lines.packed();
    slot.worker.postMessage({ type: 'bytes', id: job.id, bytes, bounds, now: job.now } satisfies ToWorker, [bytes.buffer, bounds.buffer]);
  };

  const dispatch = (job: Job): void => {
    let best: Slot | undefined;
    for (const s of slots) if (!s.retired && (best === undefined || s.jobs.size < best.jobs.size)) best = s;
    if (best === undefined) return job.reject(new Error('every detect worker failed'));
    best.jobs.set(job.id, job);
    sendBatch(best, job);
  };

  const onLoad = (slot: Slot, m: Extract<FromWorker, { type: 'loaded' | 'load_failed' }>): void => {
    const p = pending;
    if (p === undefined || p.gen.gen !== m.gen) {
      if (m.type === 'load_failed') log.error({ worker: slot.index, gen: m.gen, error: m.error }, 'detect worker could not build the serving rules');
      return;
    }
    if (m.type === 'load_failed') {
      pending = undefined;
      p.reject(new Error(`detect worker ${String(slot.index)}: ${m.error}`));
      return;
    }
    log.info({ worker: slot.index, gen: m.gen, cache: m.cache, from: m.from }, 'detect worker built its rules');
    p.waiting.delete(slot.index);
    if (p.waiting.size === 0) p.resolve();
  };

  // A worker whose entry did not build gets the generation's texts (unless it was discarded meanwhile).
  const onNeedInputs = (slot: Slot, gen: number): void => {
    const g = [current, pending?.gen].find((c) => c?.gen === gen);
    if (g === undefined) return;
    log.warn({ worker: slot.index, gen }, 'detect worker could not build from the cache entry; sending it the rule texts');
    send(slot, { type: 'prepare', ...textsOf(g) });
  };

  const spawn = (index: number): Worker => {
    const generations = pending === undefined || pending.gen.gen === current.gen ? [current] : [current, pending.gen];
    const data: DetectWorkerData = {
      settings: options.settings,
      // A replacement takes batches at once: it gets the texts (and the entry beside them, as before), not a
      // round trip to main should the entry fail.
      generations: ready ? generations : generations.map(rulesOf),
      ...(crashAt !== undefined ? { crashAtBatch: crashAt } : {}),
      ...(options.ruleCache !== undefined ? { ruleCache: options.ruleCache } : {}),
    };
    crashAt = undefined;
    const worker = new Worker(script, { workerData: data });
    worker.on('message', (m: FromWorker) => {
      const slot = slots[index];
      // A replaced worker's last words do not concern the jobs its successor took over.
      if (slot === undefined || slot.worker !== worker) return;
      if (m.type === 'loaded' || m.type === 'load_failed') return onLoad(slot, m);
      if (m.type === 'need_inputs') return onNeedInputs(slot, m.gen);
      const job = slot.jobs.get(m.id);
      if (job === undefined) return;
      slot.jobs.delete(m.id);
      slot.deaths = 0;
      if (m.type === 'done') job.resolve(m.batch);
      else job.reject(new Error(`detection failed: ${m.error}`));
    });
    worker.on('error', (error) => log.error({ err: error, worker: index }, 'detect worker failed'));
    worker.on('exit', (code) => {
      const slot = slots[index];
      if (closing || slot === undefined || slot.worker !== worker) return;
      const orphans = [...slot.jobs.values()].sort((a, b) => a.id - b.id);
      slot.jobs.clear();
      if (!ready || ++slot.deaths > MAX_RESPAWNS) {
        // Dying while building the rules (or over and over) is not something a restart fixes.
        slot.retired = true;
        log.error({ worker: index, code }, 'detect worker exited; not restarting it');
        pending?.reject(new Error(`detect worker ${String(index)} exited (code ${String(code)})`));
        pending = undefined;
      } else {
        log.error({ worker: index, code, inFlight: orphans.length }, 'detect worker exited; restarting it');
        slot.worker = spawn(index);
      }
      for (const job of orphans) {
        if (++job.attempts >= MAX_ATTEMPTS) job.reject(new Error(`batch lost ${String(job.attempts)} detect workers`));
        else dispatch(job);
      }
    });
    return worker;
  };

  const prepareAll = (gen: GenerationInputs, spawning: boolean): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      const live = spawning ? Array.from({ length: options.workers }, (_, i) => i) : slots.filter((s) => !s.retired).map((s) => s.index);
      if (live.length === 0) return reject(new Error('every detect worker failed'));
      pending = { gen, waiting: new Set(live), resolve, reject };
      if (spawning) return;
      for (const slot of slots) if (!slot.retired) send(slot, { type: 'prepare', ...rulesOf(gen) });
    });

  // The first generation loads like a prepared one: every spawned worker reports `loaded` for it.
  const started = prepareAll(current, true);
  for (let i = 0; i < options.workers; i++) slots.push({ index: i, worker: spawn(i), jobs: new Map(), deaths: 0, retired: false });
  const abort = (): void => pending?.reject(new Error('detection pool closed while starting'));
  if (options.signal?.aborted === true) abort();
  options.signal?.addEventListener('abort', abort, { once: true });
  try {
    await started;
    ready = true;
  } catch (error) {
    closing = true;
    await Promise.all(slots.map((s) => s.worker.terminate()));
    throw error;
  } finally {
    pending = undefined;
    options.signal?.removeEventListener('abort', abort);
  }

  return {
    parallelism: options.workers * QUEUE_PER_WORKER,
    detect(lines, now) {
      if (closing) return Promise.reject(new Error('detection pool closed'));
      return new Promise<DetectedBatch>((resolve, reject) => dispatch({ id: nextId++, lines, now, attempts: 0, resolve, reject }));
    },
    async prepare(_ruleSet: RuleSet, next: RuleInputs) {
      const gen: GenerationInputs = { gen: current.gen + 1, inputs: next };
      try {
        await prepareAll(gen, false);
      } catch (error) {
        for (const slot of slots) send(slot, { type: 'discard', gen: gen.gen });
        pending = undefined;
        throw error;
      }
    },
    activate() {
      const p = pending;
      if (p === undefined) return;
      pending = undefined;
      current = p.gen;
      for (const slot of slots) send(slot, { type: 'activate', gen: current.gen });
    },
    discard() {
      const p = pending;
      if (p === undefined) return;
      pending = undefined;
      for (const slot of slots) send(slot, { type: 'discard', gen: p.gen.gen });
    },
    async close() {
      closing = true;
      const error = new Error('detection pool closed');
      for (const slot of slots) {
        for (const job of slot.jobs.values()) job.reject(error);
        slot.jobs.clear();
      }
      await Promise.all(slots.map((s) => s.worker.terminate()));
    },
  };
}
