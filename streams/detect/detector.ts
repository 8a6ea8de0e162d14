// The detection stage as the batch processor sees it: lines in, a DetectedBatch out, under rules that
// a reload prepares everywhere first and then switches between batches.
import { lineTexts } from '../../protocol/index.js';
import type { UnitLines } from '../../protocol/index.js';
import type { RuleSet } from '../../sigma/index.js';
import { detectRules } from './detect-batch.js';
import type { BatchDetector, DetectedBatch, DetectRules } from './detect-batch.js';
import type { RuleInputs } from './rule-inputs.js';

export interface Detector {
  /** Batches this detector evaluates at once: how far the pipeline may read ahead. */
  readonly parallelism: number;
  /** Lines kept as bytes are decoded where detection runs. */
  detect(lines: UnitLines, now: number): Promise<DetectedBatch>;
  /** Build the next rules on every evaluator while the current ones serve; rejects when any fails. */
  prepare(ruleSet: RuleSet, inputs: RuleInputs): Promise<void>;
  /** Serve what `prepare` built; only with no batch in flight. */
  activate(): void;
  /** Forget what `prepare` built (a failed reload). */
  discard(): void;
  /**
   * Never evaluate again, and let go of what only evaluating needs (matchers, index automata) while the
   * rule set itself stays: the main thread once detection workers serve (issue 19 §2, RSS).
   */
  release?(): void;
  close(): Promise<void>;
}

/** How a detector turns a loaded rule set into what it serves: `detectRules`, or schema routing's per-set rules. */
export type PrepareRules = (ruleSet: RuleSet, inputs: RuleInputs) => Promise<DetectRules>;

/** `--detect-workers 0`: evaluate on the calling thread with the rule set main built. */
export function inlineDetector(initial: RuleSet | DetectRules, detect: BatchDetector, prepareRules: PrepareRules = (rs) => Promise.resolve(detectRules(rs))): Detector {
  let current: DetectRules = 'indexOf' in initial ? initial : detectRules(initial);
  let next: DetectRules | undefined;
  return {
    parallelism: 1,
    detect(lines, now) {
      // A failure belongs to the batch (logged, its units answered), not to the loop that started it.
      try {
        return Promise.resolve(detect(current, lineTexts(lines), now));
      } catch (error) {
        return Promise.reject(error instanceof Error ? error : new Error(String(error)));
      }
    },
    async prepare(rs, inputs) {
      next = await prepareRules(rs, inputs);
    },
    activate() {
      if (next !== undefined) current = next;
      next = undefined;
    },
    discard() {
      next = undefined;
    },
    release() {
      for (const rs of current.sets ?? [current.ruleSet]) rs.engine.release();
    },
    close: () => Promise.resolve(),
  };
}
