// A `sigmad eval` chunk worker (issue 19 §3): builds the rule set from the inputs main read (from the
// shared cache entry when main had one), then turns each chunk of raw lines into its result bytes,
// handed back without a copy. Main keeps ordering, correlation and output.
import { parentPort, workerData } from 'node:worker_threads';
import { createBatchDetector } from './detect-batch.js';
import { detectChunk } from './chunk-detect.js';
import type { ChunkResult } from './chunk-detect.js';
import { buildRuleSetCached } from './rule-cache.js';
import { buildDetectRules } from './schema-routed.js';
import type { DetectSettings } from './detect-batch.js';
import type { RuleInputs } from './rule-inputs.js';

export interface ChunkWorkerData {
  readonly inputs: RuleInputs;
  readonly settings: DetectSettings;
  /** JSON input: watch for NDJSON turning pretty-printed (chunk-detect.ts). */
  readonly watchPretty: boolean;
  /** The compiled-rule cache directory; the worker only reads it. */
  readonly ruleCache?: string;
}

export type ToChunkWorker = { readonly id: number; readonly bytes: Uint8Array; readonly now: number };

export type FromChunkWorker =
  | { readonly type: 'loaded' }
  | { readonly type: 'load_failed'; readonly error: string }
  | { readonly type: 'done'; readonly id: number; readonly result: ChunkResult }
  | { readonly type: 'failed'; readonly id: number; readonly error: string };

const data = workerData as ChunkWorkerData;
const port = parentPort;
if (port === null) throw new Error('chunk-worker must run as a worker thread');
const post = (m: FromChunkWorker, transfer: ArrayBuffer[] = []): void => port.postMessage(m, transfer);
const message = (error: unknown): string => (error instanceof Error ? error.message : String(error));

try {
  const { ruleSet } = buildRuleSetCached(data.inputs, data.ruleCache !== undefined ? { dir: data.ruleCache, store: false } : undefined);
  const rules = buildDetectRules(data.inputs, ruleSet);
  const detect = createBatchDetector(data.settings);
  port.on('message', (m: ToChunkWorker) => {
    try {
      const result = detectChunk(detect, rules, m.bytes, m.now, data.watchPretty);
      post({ type: 'done', id: m.id, result }, [result.output.buffer as ArrayBuffer]);
    } catch (error) {
      post({ type: 'failed', id: m.id, error: message(error) });
    }
  });
  post({ type: 'loaded' });
} catch (error) {
  post({ type: 'load_failed', error: message(error) });
}
