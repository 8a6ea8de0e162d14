// `sigmad eval` on a large input: lines are decoded and evaluated on the daemon's detection worker
// pool, in batches, and handed back in input order, so correlation (on this thread) and the output
// are the same bytes as a single-threaded run.
import { statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import pino from 'pino';
import type { JsonEvent } from '../protocol/index.js';
import type { RuleSet } from '../sigma/index.js';
import type { DetectedBatch, Detector, DetectSettings, RuleInputs } from '../streams/index.js';
import { createBatchDetector, handoverDetector, inlineDetector, startWorkerPool } from '../streams/index.js';
import { UsageError } from './load-pipelines.js';
import type { EventItem } from './read-events.js';

/**
 * Below this input size `auto` stays on one thread. This thread evaluates until the workers have built
 * their rules and whenever they are full, but each worker compiles the rules again (about 3 s of CPU for
 * the bundled corpus) and decodes and builds results for what it detects: on 100,000 events (106 MB) one
 * worker took half of this thread's CPU and spent more itself than a one-thread run (issue 19 bench).
 */
const AUTO_MIN_BYTES = 512 * 1024 * 1024;
const AUTO_MAX_WORKERS = 4;
/** Lines per batch: large enough that a message's fixed cost is small beside its work. */
const BATCH_LINES = 500;

/**
 * Workers for `--detect-workers N|auto`: `auto` uses one per core besides this thread's (at most 4,
 * none on one core) for a file of at least 512 MiB, none for stdin or a smaller file.
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

export interface EvalWorkers {
  /** Detection on the pool, and on this thread (with its rule set) until the workers are ready and whenever they are full. */
  withMain(ruleSet: RuleSet): Detector;
  /** Stop the workers without evaluating anything (no rule loaded). */
  close(): Promise<void>;
}

/** `ruleCache`: the compiled-rule cache directory (workers build from `inputs.shared` when main read an entry). */
export function startEvalWorkers(workers: number, inputs: RuleInputs, settings: DetectSettings, ruleCache?: string): EvalWorkers {
  // Only a worker's failure is worth a line: eval's stderr is its warnings and the summary.
  const log = pino({ level: 'error', base: null }, pino.destination({ fd: 2, sync: true }));
  const closing = new AbortController();
  const starting = startWorkerPool(inputs, { workers, settings, log, signal: closing.signal, ...(ruleCache !== undefined ? { ruleCache } : {}) });
  starting.catch(() => undefined);
  return {
    withMain: (ruleSet) => handoverDetector(inlineDetector(ruleSet, createBatchDetector(settings)), () => starting, { log, shareWhenBusy: true }),
    close: () => {
      closing.abort();
      return starting.then((pool) => pool.close(), () => undefined);
    },
  };
}

/** A batch's detections with the lines it covered, or an event read from pretty-printed objects. */
export type EvalStep = { readonly batch: DetectedBatch; readonly lines: number } | { readonly event: JsonEvent };

/**
 * The steps of `items` in input order, with up to `detector.parallelism` batches in flight. `now`
 * anchors syslog years, as a single-threaded read does.
 */
export async function* detectInOrder(items: AsyncIterable<readonly EventItem[]>, detector: Detector, now: number): AsyncGenerator<EvalStep> {
  const inflight: { readonly batch: Promise<DetectedBatch>; readonly lines: number }[] = [];
  let lines: string[] = [];
  const send = (): void => {
    if (lines.length === 0) return;
    const batch = detector.detect(lines, now);
    batch.catch(() => undefined); // awaited in order below; a rejection before then is not unhandled
    inflight.push({ batch, lines: lines.length });
    lines = [];
  };
  const oldest = async (): Promise<EvalStep> => {
    const head = inflight.shift() as (typeof inflight)[number];
    return { batch: await head.batch, lines: head.lines };
  };
  for await (const chunk of items) {
    for (const item of chunk) {
      if ('line' in item) {
        lines.push(item.line);
        if (lines.length >= BATCH_LINES) send();
        continue;
      }
      send();
      while (inflight.length > 0) yield await oldest();
      yield item;
    }
    while (inflight.length >= detector.parallelism) yield await oldest();
  }
  send();
  while (inflight.length > 0) yield await oldest();
}
