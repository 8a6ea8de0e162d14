// Where the daemon evaluates rules: inline with `--detect-workers 0`; otherwise on the main thread until
// the worker pool, started only now that main's rules are built, has built its own (issue 19 §2: ready
// after one compile of the corpus, not after three competing for the cores).
import type { Logger } from 'pino';
import { createBatchDetector, handoverDetector, inlineDetector, startWorkerPool } from '../streams/index.js';
import type { Detector } from '../streams/index.js';
import type { DaemonSettings } from './daemon-settings.js';
import type { LoadedRules } from './daemon-rules.js';

export function startDetection(
  loaded: Extract<LoadedRules, { ok: true }>,
  settings: DaemonSettings,
  log: Logger,
  crashAtBatch: number | undefined,
): Detector {
  const detectLog = log.child({ component: 'detect' });
  const inline = inlineDetector(loaded.ruleSet, createBatchDetector(settings.detect));
  detectLog.info({ workers: settings.detectWorkers }, 'detection ready');
  if (settings.detectWorkers === 0) return inline;
  const start = (signal: AbortSignal) =>
    startWorkerPool(loaded.inputs, {
      workers: settings.detectWorkers,
      settings: settings.detect,
      log,
      signal,
      ...(crashAtBatch !== undefined ? { crashAtBatch } : {}),
    });
  return handoverDetector(inline, start, { log: detectLog });
}
