// Schema routing of `sigmad daemon` (daemon-semantics §13.5): the routing spec is read once at start-up
// (reloads reuse it); each pipeline set's pipelines are read again at every reload and travel with the
// rule inputs, so the main thread and every detection worker build the same engines: one per pipeline
// set, all feeding the one correlation store.
import { resolve } from 'node:path';
import type { Logger } from 'pino';
import type { DaemonConfig, MetricHandles, SchemaReport } from '../protocol/index.js';
import { isBuiltinPipeline, prunedRules, samePipelines } from '../sigma/index.js';
import type { RuleSet, SourceValues } from '../sigma/index.js';
import { routedRuleSets, schemaRoutedRules, schemaRouter } from '../streams/index.js';
import type { DetectRules, Detector, PrepareRules, RoutingInputs, RuleInputs } from '../streams/index.js';
import { settingName } from './config.js';
import { readPipelines } from './load-pipelines.js';
import { readSchemaConfig } from './schema-config-file.js';

export type RoutingPruning = SchemaReport['routing_pruning'];

export interface DaemonRouting {
  /** The first rule inputs, with the routing the workers build from. */
  readonly inputs: RuleInputs;
  /** What the main thread serves first. */
  readonly rules: DetectRules;
  /** How the main thread builds the rules of a reload (from inputs `detector` gave the routing). */
  readonly prepareRules: PrepareRules;
  /** The detector over `inner`: a reload's inputs get the pipeline sets read again; unknown events are logged. */
  readonly detector: (inner: Detector) => Detector;
  /** Per bound schema: rules eligible and pruned by its binding's logsource, as the gauges say. */
  readonly pruning: () => RoutingPruning;
  /** Pipeline files of the sets beyond `--pipeline`: a change reloads the rules, as theirs does. */
  readonly watched: readonly string[];
}

export interface RoutingDeps {
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
  const pruneOn = config.schema.partition_rules || config.logsource_routing.enabled;
  const base = { signatures: schemaConfig.file.schemas ?? [], spec, defaultPipelines: config.pipelines, onUnknown, impliedLogsource: pruneOn };
  const router = schemaRouter({ ...base, sets: [] });
  const log = deps.log.child({ component: 'schema-routing' });
  /** The pipeline sets as read now, beside `from` (the main set's pipelines are `from`'s own). */
  const routed = async (from: RuleInputs): Promise<RuleInputs> => {
    const sets = await Promise.all(router.sets.map((s) => (samePipelines(s.pipelines, config.pipelines) ? null : readPipelines(s.pipelines, deps.sources?.appliedValues()))));
    return { ...from, routing: { ...base, sets } };
  };
  let unknown = 0;
  // Logged at the 1st, 10th, 100th, ... unknown event: an unclassifiable stream must not flood the log.
  const unknownSeen = (n: number): void => {
    const before = unknown;
    unknown += n;
    if (onUnknown === 'passthrough' || Math.floor(Math.log10(unknown)) === Math.floor(Math.log10(before))) return;
    const how = onUnknown === 'warn' ? 'evaluated against the default pipelines' : onUnknown === 'drop' ? 'dropped' : 'skipped';
    const fields = { unknown: 10 ** Math.floor(Math.log10(unknown)), on_unknown: onUnknown };
    if (onUnknown === 'error') log.error(fields, `unclassified event ${how}`);
    else log.warn(fields, `unclassified event ${how}`);
  };
  let pruning: RoutingPruning = [];
  const prepareRules: PrepareRules = (main, from) => {
    try {
      const routing = from.routing as RoutingInputs;
      const sets = routedRuleSets(main, from, routing);
      const rules = schemaRoutedRules(main, sets, { router, impliedLogsource: pruneOn });
      pruning = router.bindings.map((b) => {
        const setRules = (sets[b.set] as RuleSet).engine.rules;
        const pruned = pruneOn ? prunedRules(setRules.map((r) => r.rule.logsource), b.logsource) : 0;
        return { schema: b.schema, eligible: setRules.length - pruned, pruned };
      });
      for (const p of pruning) {
        deps.metrics.svc_schema_rules_eligible.set({ schema: p.schema }, p.eligible);
        deps.metrics.svc_schema_rules_pruned.set({ schema: p.schema }, p.pruned);
      }
      return Promise.resolve(rules);
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  };
  const first = await routed(inputs);
  const rules = await prepareRules(ruleSet, first);
  log.info({ sets: router.sets.map((s) => s.pipelines), bindings: router.bindings.map((b) => b.schema), on_unknown: onUnknown }, 'schema routing on');
  const own = new Set(config.pipelines);
  const watched = [...new Set(router.sets.flatMap((s) => s.pipelines).filter((p) => !own.has(p) && !isBuiltinPipeline(p)))].map((p) => resolve(p));
  return {
    inputs: first,
    rules,
    prepareRules,
    detector: (inner) => ({
      get parallelism() {
        return inner.parallelism;
      },
      detect: (lines, now) =>
        inner.detect(lines, now).then((batch) => {
          if (batch.unknownSchema !== undefined && batch.unknownSchema > 0) unknownSeen(batch.unknownSchema);
          return batch;
        }),
      prepare: async (next, from) => inner.prepare(next, await routed(from)),
      activate: () => inner.activate(),
      discard: () => inner.discard(),
      close: () => inner.close(),
    }),
    pruning: () => pruning,
    watched,
  };
}
