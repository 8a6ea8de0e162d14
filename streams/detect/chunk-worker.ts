// A `sigmad eval` chunk worker (issue 19 §3): started before main has read the rules (its module load
// overlaps that read), it builds the rule set from main's compiled-rule cache entry (in shared memory),
// or from the rule texts main sends when it has none or the entry does not build, and turns each chunk
// of raw lines into its result bytes, handed back without a copy. Main keeps ordering, correlation and output.
import { parentPort, workerData } from 'node:worker_threads';
import { createBatchDetector, detectRules } from './detect-batch.js';
import { detectChunk } from './chunk-detect.js';
import type { ChunkResult } from './chunk-detect.js';
import { buildFromShared, buildRuleSetCached } from './rule-cache.js';
import type { EntrySettings, SharedRules } from './rule-cache.js';
import { buildDetectRules } from './schema-routed.js';
import type { DetectRules, DetectSettings } from './detect-batch.js';
import type { RuleInputs } from './rule-inputs.js';

export interface ChunkWorkerData {
  readonly settings: DetectSettings;
  /** JSON input: watch for NDJSON turning pretty-printed (chunk-detect.ts). */
  readonly watchPretty: boolean;
  /** The compiled-rule cache directory; the worker only reads it. */
  readonly ruleCache?: string;
}

/** The rules first (main's cache entry, or the texts: at first when main has no entry, or when the worker asks), then chunks. */
export type ToChunkWorker =
  | { readonly type: 'entry'; readonly settings: EntrySettings; readonly entry: SharedRules }
  | { readonly type: 'rules'; readonly inputs: RuleInputs }
  | { readonly type: 'chunk'; readonly id: number; readonly bytes: Uint8Array; readonly now: number };

export type FromChunkWorker =
  | { readonly type: 'loaded' }
  /** The entry did not build: send the texts. */
  | { readonly type: 'need_inputs' }
  | { readonly type: 'load_failed'; readonly error: string }
  | { readonly type: 'done'; readonly id: number; readonly result: ChunkResult }
  | { readonly type: 'failed'; readonly id: number; readonly error: string };

const data = workerData as ChunkWorkerData;
const port = parentPort;
if (port === null) throw new Error('chunk-worker must run as a worker thread');
const post = (m: FromChunkWorker, transfer: ArrayBuffer[] = []): void => port.postMessage(m, transfer);
const message = (error: unknown): string => (error instanceof Error ? error.message : String(error));

const detect = createBatchDetector(data.settings);
let rules: DetectRules | undefined;

port.on('message', (m: ToChunkWorker) => {
  if (m.type === 'entry') {
    try {
      // Main derived the entry's key from the texts: nothing here reads or hashes them.
      const ruleSet = buildFromShared(m.settings, m.entry);
      if (ruleSet === undefined) return post({ type: 'need_inputs' });
      rules = detectRules(ruleSet);
      post({ type: 'loaded' });
    } catch (error) {
      post({ type: 'load_failed', error: message(error) });
    }
    return;
  }
  if (m.type === 'rules') {
    try {
      // Main hashed these very inputs to find the entry it shares: its key spares this thread hashing every rule text again.
      const key = m.inputs.shared !== undefined ? Buffer.from(m.inputs.shared.key, 'hex') : undefined;
      const { ruleSet } = buildRuleSetCached(m.inputs, data.ruleCache !== undefined ? { dir: data.ruleCache, store: false } : undefined, undefined, key);
      rules = buildDetectRules(m.inputs, ruleSet);
      post({ type: 'loaded' });
    } catch (error) {
      post({ type: 'load_failed', error: message(error) });
    }
    return;
  }
  try {
    if (rules === undefined) throw new Error('no rules loaded');
    const result = detectChunk(detect, rules, m.bytes, m.now, data.watchPretty);
    post({ type: 'done', id: m.id, result }, [result.output.buffer as ArrayBuffer]);
  } catch (error) {
    post({ type: 'failed', id: m.id, error: message(error) });
  }
});
