// The daemon's one way to turn its config into a rule set: rule files, file pipelines re-read from
// disk, then the shared load path. Used at start-up and by every reload.
import { readFile } from 'node:fs/promises';
import type { CorrelationRuntimeOptions } from '../actors/correlation/index.js';
import type { DaemonConfig } from '../protocol/config.js';
import { buildTimestampFields, DEFAULT_CORRELATION_SETTINGS } from '../sigma/correlation/index.js';
import type { CorrelationDefaults } from '../sigma/correlation/index.js';
import type { SigmaError } from '../sigma/errors.js';
import { isBuiltinPipeline } from '../sigma/pipeline/index.js';
import type { Pipeline } from '../sigma/pipeline/index.js';
import type { RuleSet } from '../sigma/rule-set.js';
import { parseTimespan } from '../sigma/rule/index.js';
import { buildRuleSetFrom, resolvePipelines } from '../streams/index.js';
import type { PipelineInput, RuleInputs } from '../streams/index.js';
import { UsageError } from './load-pipelines.js';
import { readRuleSources } from './rule-files.js';

export type LoadedRules =
  | { readonly ok: true; readonly ruleSet: RuleSet; readonly inputs: RuleInputs; readonly problems: readonly SigmaError[] }
  | { readonly ok: false; readonly reason: string; readonly problems: readonly SigmaError[] };

/** Correlation defaults from the `daemon.correlation` keys. */
export function correlationDefaults(config: DaemonConfig): CorrelationDefaults {
  const c = config.correlation;
  return {
    ...DEFAULT_CORRELATION_SETTINGS,
    action: c.action,
    suppressMs: c.suppress === undefined ? 0 : (parseTimespan(c.suppress) ?? 0),
    eventMode: c.event_mode,
    maxEvents: c.max_events,
    maxGroupEntries: c.max_group_entries ?? 0,
  };
}

/** Runtime options of the correlation groups (the journal hook is added by the caller). */
export function runtimeOptions(config: DaemonConfig, ruleSet: RuleSet): CorrelationRuntimeOptions {
  return {
    timestampFields: buildTimestampFields(config.correlation.timestamp_fields, ruleSet.correlations.ruleTimestampFields),
    timestampFallback: config.correlation.timestamp_fallback,
    maxStateEntries: config.correlation.max_state_entries,
  };
}

/** Pipeline references with the texts of the file ones (read here, once). */
async function readPipelines(references: readonly string[]): Promise<PipelineInput[]> {
  const out: PipelineInput[] = [];
  for (const ref of references) {
    if (isBuiltinPipeline(ref)) {
      out.push({ ref });
      continue;
    }
    try {
      out.push({ ref, text: await readFile(ref, 'utf8') });
    } catch (e) {
      throw new UsageError(`pipeline '${ref}' is neither a built-in pipeline nor a readable file (${(e as Error).message})`);
    }
  }
  return out;
}

/**
 * Load rules as configured. Pipeline problems fail the load; rule problems are reported and the
 * rules that loaded are kept; a load with no rule at all fails (exit 2 at start-up). The texts read
 * come back as `inputs`, from which detection workers build the same rule set.
 */
export async function loadDaemonRules(config: DaemonConfig, rulesPath: string): Promise<LoadedRules> {
  let pipelineInputs: PipelineInput[];
  let pipelines: Pipeline[];
  try {
    pipelineInputs = await readPipelines(config.pipelines);
    pipelines = resolvePipelines(pipelineInputs);
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : String(error), problems: [] };
  }
  const files = await readRuleSources([rulesPath]);
  const inputs: RuleInputs = {
    sources: files.sources,
    pipelines: pipelineInputs,
    correlation: correlationDefaults(config),
    emitReferenced: config.correlation.emit_referenced,
  };
  const ruleSet = buildRuleSetFrom(inputs, pipelines);
  const problems = [...files.errors, ...ruleSet.errors];
  if (ruleSet.engine.rules.length === 0 && ruleSet.correlations.correlations.length === 0) {
    return { ok: false, reason: 'no rule loaded', problems };
  }
  return { ok: true, ruleSet, inputs, problems };
}
