// Messages between the detection pool and its worker threads (structured-clone data only).
import type { DetectedBatch, DetectSettings } from './detect-batch.js';
import type { CachedBuild, EntrySettings, SharedRules } from './rule-cache.js';
import type { RuleInputs } from './rule-inputs.js';

/** Rules of one generation as texts; a reload prepares generation n+1 beside n. */
export interface GenerationInputs {
  readonly gen: number;
  readonly inputs: RuleInputs;
}

/**
 * Rules of one generation as main's compiled-rule cache entry for its texts (its key included): shared
 * memory, so sending it copies nothing, where cloning the texts held main for milliseconds per worker.
 */
export interface GenerationEntry extends EntrySettings {
  readonly gen: number;
  readonly entry: SharedRules;
}

/** What a worker builds a generation from: the entry when main has one, else (or when it fails) the texts. */
export type GenerationRules = GenerationInputs | GenerationEntry;

/** How a worker built a generation: from main's entry, or from the texts. */
export type BuiltFrom = 'entry' | 'texts';

export interface DetectWorkerData {
  readonly settings: DetectSettings;
  /** Serving rules, then (during a reload) the prepared ones. */
  readonly generations: readonly GenerationRules[];
  /** The compiled-rule cache directory the main thread stores in; workers only read it. */
  readonly ruleCache?: string;
  /** Test hook: throw an uncaught error on this (1-based) batch. */
  readonly crashAtBatch?: number;
}

export type ToWorker =
  | { readonly type: 'batch'; readonly id: number; readonly lines: readonly string[]; readonly now: number }
  /** A batch kept as bytes (`ByteLines`, transferred): the worker decodes its lines. */
  | { readonly type: 'bytes'; readonly id: number; readonly bytes: Uint8Array; readonly bounds: Int32Array; readonly now: number }
  | ({ readonly type: 'prepare' } & GenerationRules)
  | { readonly type: 'activate'; readonly gen: number }
  | { readonly type: 'discard'; readonly gen: number };

export type FromWorker =
  | { readonly type: 'loaded'; readonly gen: number; readonly cache: CachedBuild['cache']; readonly from: BuiltFrom }
  /** The entry did not build (damaged): main answers with a `prepare` carrying the generation's texts. */
  | { readonly type: 'need_inputs'; readonly gen: number }
  | { readonly type: 'load_failed'; readonly gen: number; readonly error: string }
  | { readonly type: 'done'; readonly id: number; readonly batch: DetectedBatch }
  | { readonly type: 'failed'; readonly id: number; readonly error: string };
