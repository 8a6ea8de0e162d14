// Where the daemon evaluates rules: inline with `--detect-workers 0`; otherwise on the main thread until
// the worker pool, started only now that main's rules are built, has built its own (issue 19 §2: ready
// after one compile of the corpus, not after three competing for the cores).
import type { Logger } from 'pino';
import { createBatchDetector, handoverDetector, inlineDetector, startWorkerPool } from '../streams/index.js';
import type { Detector, Extractor } from '../streams/index.js';
import type { DaemonSettings } from './daemon-settings.js';
import type { LoadedRules } from './daemon-rules.js';

export interface DetectionOptions {
  readonly crashAtBatch?: number | undefined;
  /** The `--jq` / `--jsonpath` input filter (workers compile their own from the settings). */
  readonly filter?: Extractor | undefined;
  /** Schema routing's detector: one engine per pipeline set, on the main thread only. */
  readonly routing?: Detector | undefined;
  /** The compiled-rule cache directory the workers read (`ruleCacheDir`). */
  readonly ruleCache?: string | undefined;
}

export function startDetection(loaded: Extract<LoadedRules, { ok: true }>, settings: DaemonSettings, log: Logger, options: DetectionOptions = {}): Detector {
  const detectLog = log.child({ component: 'detect' });
  const { crashAtBatch, ruleCache } = options;
  const workers = options.routing !== undefined ? 0 : settings.detectWorkers;
  detectLog.info({ workers }, 'detection ready');
  if (options.routing !== undefined) return options.routing;
  const inline = inlineDetector(loaded.ruleSet, createBatchDetector(settings.detect, options.filter));
  if (workers === 0) return inline;
  const start = (signal: AbortSignal) =>
    startWorkerPool(loaded.inputs, {
      workers: settings.detectWorkers,
      settings: settings.detect,
      log,
      signal,
      ...(crashAtBatch !== undefined ? { crashAtBatch } : {}),
      ...(ruleCache !== undefined ? { ruleCache } : {}),
    });
  return handoverDetector(inline, start, { log: detectLog });
}
