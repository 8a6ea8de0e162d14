// Where the daemon evaluates rules: inline with `--detect-workers 0`; otherwise on the main thread until
// the worker pool, started only now that main's rules are built, has built its own (issue 19 §2: ready
// after one compile of the corpus, not after three competing for the cores). Schema routing runs the
// same way: its pipeline sets travel with the rule inputs.
import type { Logger } from 'pino';
import { createBatchDetector, handoverDetector, inlineDetector, startWorkerPool } from '../streams/index.js';
import type { Detector, Extractor } from '../streams/index.js';
import type { DaemonRouting } from './daemon-routing.js';
import type { DaemonSettings } from './daemon-settings.js';
import type { LoadedRules } from './daemon-rules.js';

export interface DetectionOptions {
  readonly crashAtBatch?: number | undefined;
  /** The `--jq` / `--jsonpath` input filter (workers compile their own from the settings). */
  readonly filter?: Extractor | undefined;
  /** Schema routing: one engine per pipeline set, wherever detection runs. */
  readonly routing?: DaemonRouting | undefined;
  /** The compiled-rule cache directory the workers read (`ruleCacheDir`). */
  readonly ruleCache?: string | undefined;
  /**
   * The workers are spawned once this settles (the daemon: once it is ready), so that spawning them (each
   * gets the rule texts) and their own start-up do not take the cores from the main thread's way to ready.
   */
  readonly workersAfter?: Promise<void> | undefined;
}

export function startDetection(loaded: Extract<LoadedRules, { ok: true }>, settings: DaemonSettings, log: Logger, options: DetectionOptions = {}): Detector {
  const detectLog = log.child({ component: 'detect' });
  const { crashAtBatch, routing, ruleCache } = options;
  const workers = settings.detectWorkers;
  detectLog.info({ workers }, 'detection ready');
  const inline = inlineDetector(routing?.rules ?? loaded.ruleSet, createBatchDetector(settings.detect, options.filter), routing?.prepareRules);
  const around = routing?.detector ?? ((d: Detector) => d);
  if (workers === 0) return around(inline);
  const start = async (signal: AbortSignal) => {
    await options.workersAfter;
    if (signal.aborted) throw new Error('detection closed before its workers started');
    return startWorkerPool(routing?.inputs ?? loaded.inputs, {
      workers: settings.detectWorkers,
      settings: settings.detect,
      log,
      signal,
      ...(crashAtBatch !== undefined ? { crashAtBatch } : {}),
      ...(ruleCache !== undefined ? { ruleCache } : {}),
    });
  };
  return around(handoverDetector(inline, start, { log: detectLog }));
}
