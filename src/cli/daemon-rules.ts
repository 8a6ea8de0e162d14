// The daemon's one way to turn its config into a rule set: rule files, file pipelines re-read from
// disk, then the shared load path. Used at start-up and by every reload.
import type { CorrelationRuntimeOptions } from '../actors/correlation/index.js';
import type { DaemonConfig } from '../protocol/config.js';
import { buildTimestampFields, DEFAULT_CORRELATION_SETTINGS } from '../sigma/correlation/index.js';
import type { CorrelationDefaults } from '../sigma/correlation/index.js';
import type { SigmaError } from '../sigma/errors.js';
import type { Pipeline } from '../sigma/pipeline/index.js';
import { buildRuleSet } from '../sigma/rule-set.js';
import type { RuleSet } from '../sigma/rule-set.js';
import { parseTimespan } from '../sigma/rule/index.js';
import { loadPipelines } from './load-pipelines.js';
import { readRuleSources } from './rule-files.js';

export type LoadedRules =
  | { readonly ok: true; readonly ruleSet: RuleSet; readonly problems: readonly SigmaError[] }
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

/**
 * Load rules as configured. Pipeline problems fail the load; rule problems are reported and the
 * rules that loaded are kept; a load with no rule at all fails (exit 2 at start-up).
 */
export async function loadDaemonRules(config: DaemonConfig, rulesPath: string): Promise<LoadedRules> {
  let pipelines: Pipeline[];
  try {
    pipelines = await loadPipelines(config.pipelines);
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : String(error), problems: [] };
  }
  const files = await readRuleSources([rulesPath]);
  const ruleSet = buildRuleSet(files.sources, {
    pipelines,
    correlation: correlationDefaults(config),
    emitReferenced: config.correlation.emit_referenced,
  });
  const problems = [...files.errors, ...ruleSet.errors];
  if (ruleSet.engine.rules.length === 0 && ruleSet.correlations.correlations.length === 0) {
    return { ok: false, reason: 'no rule loaded', problems };
  }
  return { ok: true, ruleSet, problems };
}
