// What a rule set is built from, as plain data: the daemon reads files once and hands the same texts
// to every detection worker, so a file that changes mid-reload cannot split the workers' rules.
import type { CorrelationDefaults } from '../../sigma/index.js';
import { formatSigmaError } from '../../sigma/index.js';
import { resolvePipeline } from '../../sigma/index.js';
import type { Pipeline } from '../../sigma/index.js';
import { buildRuleSet } from '../../sigma/index.js';
import type { RuleSet } from '../../sigma/index.js';
import type { RuleSource } from '../../sigma/index.js';
import type { SourceValues } from '../../sigma/index.js';
import type { SharedRules } from './rule-cache.js';
import type { RoutingInputs } from './schema-routed.js';

/** A `--pipeline` reference: a builtin name (no text) or a YAML file's path and text. */
export interface PipelineInput {
  readonly ref: string;
  readonly text?: string;
  /** Dynamic-source values its `${source.*}` references expand to (the daemon with `--source`). */
  readonly sources?: SourceValues;
}

export interface RuleInputs {
  readonly sources: readonly RuleSource[];
  readonly pipelines: readonly PipelineInput[];
  readonly correlation: CorrelationDefaults;
  readonly emitReferenced: boolean;
  /**
   * The main thread's compiled-rule cache entry for these inputs, in shared memory: a detection worker
   * builds from it instead of reading and checking the file, and its automata read the one shared copy.
   */
  readonly shared?: SharedRules;
  /** `--schema-routing`: the router and the pipeline sets, built beside the main set (schema-routed.ts). */
  readonly routing?: RoutingInputs;
}

/** Resolve pipeline references; throws with the pipeline's problems when one does not load. */
export function resolvePipelines(inputs: readonly PipelineInput[]): Pipeline[] {
  return inputs.map(({ ref, text, sources }) => {
    const parsed = resolvePipeline(ref, text, sources);
    if (parsed.pipeline === undefined || parsed.errors.length > 0) {
      throw new Error(parsed.errors.map((e) => formatSigmaError(e)).join('\n') || `pipeline '${ref}' did not load`);
    }
    return parsed.pipeline;
  });
}

/** The rule set of `inputs`, the same wherever it is built (pure); `recordAutomata` for a cache entry. */
export function buildRuleSetFrom(inputs: RuleInputs, pipelines: readonly Pipeline[] = resolvePipelines(inputs.pipelines), recordAutomata = false): RuleSet {
  return buildRuleSet(inputs.sources, { pipelines, correlation: inputs.correlation, emitReferenced: inputs.emitReferenced, recordAutomata });
}
