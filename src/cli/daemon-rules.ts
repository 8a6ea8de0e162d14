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

/** What a load read from disk: the texts (for workers) and what main parsed on the way. */
export type RuleTexts =
  | { readonly ok: true; readonly inputs: RuleInputs; readonly pipelines: readonly Pipeline[]; readonly readErrors: readonly SigmaError[] }
  | { readonly ok: false; readonly reason: string };

/** Read the rule files and pipelines once; a pipeline that does not load fails the read. */
export async function readDaemonRules(config: DaemonConfig, rulesPath: string): Promise<RuleTexts> {
  let pipelineInputs: PipelineInput[];
  let pipelines: Pipeline[];
  try {
    pipelineInputs = await readPipelines(config.pipelines);
    pipelines = resolvePipelines(pipelineInputs);
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : String(error) };
  }
  const files = await readRuleSources([rulesPath]);
  const inputs: RuleInputs = {
    sources: files.sources,
    pipelines: pipelineInputs,
    correlation: correlationDefaults(config),
    emitReferenced: config.correlation.emit_referenced,
  };
  return { ok: true, inputs, pipelines, readErrors: files.errors };
}

/**
 * Build what was read. Rule problems are reported and the rules that loaded are kept; a load with
 * no rule at all fails (exit 2 at start-up). `inputs` come along: workers build the same rule set.
 */
export function buildDaemonRules(texts: RuleTexts): LoadedRules {
  if (!texts.ok) return { ok: false, reason: texts.reason, problems: [] };
  const ruleSet = buildRuleSetFrom(texts.inputs, texts.pipelines);
  const problems = [...texts.readErrors, ...ruleSet.errors];
  if (ruleSet.engine.rules.length === 0 && ruleSet.correlations.correlations.length === 0) {
    return { ok: false, reason: 'no rule loaded', problems };
  }
  return { ok: true, ruleSet, inputs: texts.inputs, problems };
}

/** Read and build, as every reload does. */
export async function loadDaemonRules(config: DaemonConfig, rulesPath: string): Promise<LoadedRules> {
  return buildDaemonRules(await readDaemonRules(config, rulesPath));
}
