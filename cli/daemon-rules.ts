// The daemon's one way to turn its config into a rule set: rule files, file pipelines re-read from
// disk, then the shared load path. Used at start-up and by every reload.
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { CorrelationRuntimeOptions } from '../actors/index.js';
import type { DaemonConfig } from '../protocol/index.js';
import { buildTimestampFields, DEFAULT_CORRELATION_SETTINGS } from '../sigma/index.js';
import type { CorrelationDefaults } from '../sigma/index.js';
import { formatSigmaError } from '../sigma/index.js';
import type { SigmaError } from '../sigma/index.js';
import type { Pipeline } from '../sigma/index.js';
import type { SourceValues } from '../sigma/index.js';
import type { RuleSet } from '../sigma/index.js';
import { parseTimespan } from '../sigma/index.js';
import { buildRuleSetStoring, prefetchNewestEntry, resolvePipelines } from '../streams/index.js';
import type { CachedBuild, PipelineInput, PrefetchedEntry, RuleInputs } from '../streams/index.js';
import { ruleCacheIn } from './bundled-rule-cache.js';
import { readPipelines } from './load-pipelines.js';
import { readRuleSources } from './rule-files.js';

/** Why a load failed: its pipelines (a bad `--pipeline`), or its rule files. */
type LoadFailure = 'pipeline' | 'rules';

/** How the build went: from the compiled-rule cache or not, and how long it took. */
export interface RuleBuild {
  readonly cache: CachedBuild['cache'];
  /** The build, of which `entryMs` went to finding, reading and checking the cache entry. */
  readonly ms: number;
  readonly entryMs: number;
  /** Reading the rule files and pipelines before it. */
  readonly readMs: number;
  readonly storeError?: string;
}

export type LoadedRules =
  | { readonly ok: true; readonly ruleSet: RuleSet; readonly inputs: RuleInputs; readonly build: RuleBuild }
  | { readonly ok: false; readonly failure: LoadFailure; readonly reason: string; readonly problems: readonly SigmaError[] };

/** Correlation defaults from the `daemon.correlation` keys. */
function correlationDefaults(config: DaemonConfig): CorrelationDefaults {
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

/** Where the compiled-rule cache lives (`daemon.state.rule_cache`), or undefined when there is none. */
export function ruleCacheDir(config: DaemonConfig): string | undefined {
  const setting = config.state.rule_cache;
  if (typeof setting === 'string') return setting;
  return setting && config.state.db !== undefined ? join(config.state.db, 'rule-cache') : undefined;
}

/** Runtime options of the correlation groups (the journal hook is added by the caller). */
export function runtimeOptions(config: DaemonConfig, ruleSet: RuleSet): CorrelationRuntimeOptions {
  return {
    timestampFields: buildTimestampFields(config.correlation.timestamp_fields, ruleSet.correlations.ruleTimestampFields),
    timestampFallback: config.correlation.timestamp_fallback,
    maxStateEntries: config.correlation.max_state_entries,
  };
}

/** What a load read from disk: the texts (for workers) and what main parsed on the way. */
export type RuleTexts =
  | {
      readonly ok: true;
      readonly inputs: RuleInputs;
      readonly pipelines: readonly Pipeline[];
      readonly readErrors: readonly SigmaError[];
      readonly readMs: number;
      /** The compiled-rule cache entry read ahead meanwhile (start-up only). */
      readonly ahead?: PrefetchedEntry;
    }
  | { readonly ok: false; readonly failure: 'pipeline'; readonly reason: string };

/**
 * Read the rule files and pipelines once; a pipeline that does not load fails the read. With `readAhead`
 * (the cache directory, at start-up), the newest cache entry is read on the thread pool meanwhile: the
 * entry a restart with unchanged rules needs (on a first start, the build's). Not on a reload, whose rules changed more often than not.
 */
export async function readDaemonRules(config: DaemonConfig, rulesPath: string, sources?: SourceValues, readAhead?: string): Promise<RuleTexts> {
  const started = performance.now();
  const ahead = readAhead !== undefined ? prefetchNewestEntry(ruleCacheIn(readAhead)) : undefined;
  let pipelineInputs: PipelineInput[];
  let pipelines: Pipeline[];
  try {
    pipelineInputs = await readPipelines(config.pipelines, sources);
    pipelines = resolvePipelines(pipelineInputs);
  } catch (error) {
    return { ok: false, failure: 'pipeline', reason: error instanceof Error ? error.message : String(error) };
  }
  const files = await readRuleSources([rulesPath]);
  const inputs: RuleInputs = {
    sources: files.sources,
    pipelines: pipelineInputs,
    correlation: correlationDefaults(config),
    emitReferenced: config.correlation.emit_referenced,
  };
  return { ok: true, inputs, pipelines, readErrors: files.errors, readMs: Math.round(performance.now() - started), ...(ahead !== undefined ? { ahead } : {}) };
}

/**
 * Build what was read. A load with any parse or compile problem fails, as does one without a rule:
 * the contract makes such a reload fail (the previous rules keep serving) and the same texts must get
 * the same verdict at start-up (exit 2), or a restart would silently drop rules a reload refused.
 * `inputs` come along: workers build the same rule set. With `cacheDir`, the build starts from the
 * compiled-rule cache and stores what it compiled there (compiled on a worker thread: this thread builds
 * from the entry, and keeps nothing of the compile).
 */
export async function buildDaemonRules(texts: RuleTexts, cacheDir?: string): Promise<LoadedRules> {
  if (!texts.ok) return { ok: false, failure: 'pipeline', reason: texts.reason, problems: [] };
  const started = performance.now();
  const built = await buildRuleSetStoring(texts.inputs, cacheDir !== undefined ? ruleCacheIn(cacheDir) : undefined, texts.pipelines, texts.ahead);
  const { ruleSet } = built;
  const build: RuleBuild = {
    cache: built.cache,
    ms: Math.round(performance.now() - started),
    entryMs: Math.round(built.entryMs),
    readMs: texts.readMs,
    ...(built.storeError !== undefined ? { storeError: built.storeError } : {}),
  };
  const problems = [...texts.readErrors, ...ruleSet.errors];
  if (problems.length > 0) return { ok: false, failure: 'rules', reason: problemSummary(problems), problems };
  if (ruleSet.engine.rules.length === 0 && ruleSet.correlations.correlations.length === 0) {
    return { ok: false, failure: 'rules', reason: 'no rule loaded', problems };
  }
  // Workers build from the entry in shared memory, not each from the file.
  return { ok: true, ruleSet, inputs: built.shared !== undefined ? { ...texts.inputs, shared: built.shared } : texts.inputs, build };
}

/** Log how a build went: from the compiled-rule cache or compiled, and its time; a store that failed warns. */
export function logRuleBuild(log: Logger, loaded: LoadedRules): LoadedRules {
  if (!loaded.ok) return loaded;
  const { cache, ms, entryMs, readMs, storeError } = loaded.build;
  log.info({ ruleCache: cache, ms, entryMs, readMs }, 'rules built');
  if (storeError !== undefined) log.warn({ error: storeError }, 'compiled-rule cache not written; the next start compiles again');
  return loaded;
}

/** One line: how many problems, and the first in full (each is also logged on its own). */
function problemSummary(problems: readonly SigmaError[]): string {
  const first = problems[0] === undefined ? '' : `: ${formatSigmaError(problems[0])}`;
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : '';
  return `${problems.length} rule problem${problems.length === 1 ? '' : 's'}${first}${more}`;
}

/** Dynamic sources as a reload sees them (`DaemonSources`). */
interface ReloadSources {
  beforeLoad(): Promise<string | undefined>;
  pipelineValues(): SourceValues;
}

/** Read and build, as every reload does; dynamic sources are re-resolved first (a required one without a value fails the load). */
export async function loadDaemonRules(config: DaemonConfig, rulesPath: string, sources?: ReloadSources): Promise<LoadedRules> {
  const failure = await sources?.beforeLoad();
  if (failure !== undefined) return { ok: false, failure: 'pipeline', reason: failure, problems: [] };
  return buildDaemonRules(await readDaemonRules(config, rulesPath, sources?.pipelineValues()), ruleCacheDir(config));
}
