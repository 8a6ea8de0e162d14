// Schema routing of `sigmad daemon` (daemon-semantics §13.5): the routing spec is read once at start-up
// (reloads reuse it); each pipeline set's rule set is rebuilt from the same rule files at every reload.
// Detection runs on the main thread: one engine per pipeline set, all feeding the one correlation store.
import { resolve } from 'node:path';
import type { Logger } from 'pino';
import type { DaemonConfig, MetricHandles, SchemaReport } from '../protocol/index.js';
import { isBuiltinPipeline, prunedRules, samePipelines, SchemaRouter } from '../sigma/index.js';
import type { RuleSet, SourceValues } from '../sigma/index.js';
import { buildRuleSetFrom, createBatchDetector, inlineDetector, resolvePipelines, schemaRoutedRules } from '../streams/index.js';
import type { DetectRules, DetectSettings, Detector, Extractor, RuleInputs } from '../streams/index.js';
import { settingName } from './config.js';
import { readPipelines } from './load-pipelines.js';
import { readSchemaConfig } from './schema-config-file.js';

export type RoutingPruning = SchemaReport['routing_pruning'];

export interface DaemonRouting {
  readonly detector: Detector;
  /** Per bound schema: rules eligible and pruned by its binding's logsource, as the gauges say. */
  readonly pruning: () => RoutingPruning;
  /** Pipeline files of the sets beyond `--pipeline`: a change reloads the rules, as theirs does. */
  readonly watched: readonly string[];
}

export interface RoutingDeps {
  readonly detect: DetectSettings;
  /** The `--jq` / `--jsonpath` input filter, applied before routing. */
  readonly filter?: Extractor;
  readonly metrics: MetricHandles;
  readonly log: Logger;
  /** Dynamic sources: the values the main set was just built from expand the other sets' pipelines too. */
  readonly sources?: { appliedValues(): SourceValues };
}

/** Undefined without `--schema-routing`. Throws an Error naming the setting when the spec does not load. */
export async function createDaemonRouting(config: DaemonConfig, ruleSet: RuleSet, inputs: RuleInputs, deps: RoutingDeps): Promise<DaemonRouting | undefined> {
  if (!config.schema.routing) return undefined;
  const path = config.schema.config;
  if (path === undefined) throw new Error(`${settingName('schema.routing')} needs ${settingName('schema.config')} with a routing: block`);
  const schemaConfig = await readSchemaConfig(path).catch((error: unknown) => {
    throw new Error(`${settingName('schema.config')} ${path}: ${error instanceof Error ? error.message : String(error)}`);
  });
  const spec = schemaConfig.file.routing ?? {};
  const onUnknown = config.schema.on_unknown ?? spec.on_unknown ?? 'warn';
  const router = new SchemaRouter(schemaConfig.classifier, spec, config.pipelines, onUnknown);
  const pruneOn = config.schema.partition_rules || config.logsource_routing.enabled;
  const log = deps.log.child({ component: 'schema-routing' });
  let unknown = 0;
  const routingOf = {
    router,
    impliedLogsource: pruneOn,
    // Logged at the 1st, 10th, 100th, ... unknown event: an unclassifiable stream must not flood the log.
    onUnknown: () => {
      unknown++;
      if (onUnknown === 'passthrough' || !Number.isInteger(Math.log10(unknown))) return;
      const how = onUnknown === 'warn' ? 'evaluated against the default pipelines' : onUnknown === 'drop' ? 'dropped' : 'skipped';
      const fields = { unknown, on_unknown: onUnknown };
      if (onUnknown === 'error') log.error(fields, `unclassified event ${how}`);
      else log.warn(fields, `unclassified event ${how}`);
    },
  };
  let pruning: RoutingPruning = [];
  const build = async (main: RuleSet, from: RuleInputs): Promise<DetectRules> => {
    const sets = await Promise.all(router.sets.map((s) => (samePipelines(s.pipelines, config.pipelines) ? main : setRuleSet(from, s.pipelines, deps.sources?.appliedValues()))));
    const rules = schemaRoutedRules(main, sets, routingOf);
    pruning = router.bindings.map((b) => {
      const setRules = (sets[b.set] as RuleSet).engine.rules;
      const pruned = pruneOn ? prunedRules(setRules.map((r) => r.rule.logsource), b.logsource) : 0;
      return { schema: b.schema, eligible: setRules.length - pruned, pruned };
    });
    for (const p of pruning) {
      deps.metrics.svc_schema_rules_eligible.set({ schema: p.schema }, p.eligible);
      deps.metrics.svc_schema_rules_pruned.set({ schema: p.schema }, p.pruned);
    }
    return rules;
  };
  const initial = await build(ruleSet, inputs);
  log.info({ sets: router.sets.map((s) => s.pipelines), bindings: router.bindings.map((b) => b.schema), on_unknown: onUnknown }, 'schema routing on');
  const own = new Set(config.pipelines);
  const watched = [...new Set(router.sets.flatMap((s) => s.pipelines).filter((p) => !own.has(p) && !isBuiltinPipeline(p)))].map((p) => resolve(p));
  return { detector: inlineDetector(initial, createBatchDetector(deps.detect, deps.filter), build), pruning: () => pruning, watched };
}

/** The rule set of one pipeline set; a pipeline that does not load or a rule that does not compile under it throws. */
async function setRuleSet(inputs: RuleInputs, references: readonly string[], sources: SourceValues | undefined): Promise<RuleSet> {
  const pipelines = await readPipelines(references, sources);
  const ruleSet = buildRuleSetFrom({ ...inputs, pipelines }, resolvePipelines(pipelines));
  const first = ruleSet.errors[0];
  if (first !== undefined) throw new Error(`pipelines ${references.join(', ')}: ${first.message}`);
  return ruleSet;
}
