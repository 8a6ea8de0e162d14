// The field and schema observers of `sigmad daemon` (daemon-semantics §13.1–13.4), wired from the
// config: nothing is built when both are off, so the data path does no work for them. Events are
// observed where detection decodes them (`ObserveSettings` travel in the detection settings); the
// observers here merge each batch's observations.
import type { Logger } from 'pino';
import type { FieldObserver as FieldObserverApi, SchemaObserver as SchemaObserverApi } from '../http/index.js';
import type { DaemonConfig, MetricHandles, SchemaReport, SchemaSignature, SchemaSuggestions } from '../protocol/index.js';
import { ruleFieldSet, suggestSignatures } from '../sigma/index.js';
import type { RuleFieldSet, RuleSet } from '../sigma/index.js';
import { FieldObserver, ObserveStage, SchemaObserver } from '../streams/index.js';
import type { Clock, ObservedBatch, ObserveSettings } from '../streams/index.js';
import { readSchemaConfig } from './schema-config-file.js';

export interface DaemonObservers {
  /** Merge a batch's observations (the batch processor's `observed` hook). */
  readonly observed: (batch: ObservedBatch) => void;
  /** Advance the observer metrics (before each scrape). */
  readonly refreshMetrics: () => void;
  readonly fieldObserver?: FieldObserverApi;
  readonly schemaObserver?: SchemaObserverApi;
  readonly schemaDiscovery?: { suggestions(): SchemaSuggestions };
}

export interface ObserverDeps {
  readonly clock: Clock;
  readonly metrics: MetricHandles;
  /** The rule set in force (its field set is recomputed after each reload). */
  readonly ruleSet: () => RuleSet;
  /** Schema routing's per-schema pruning, with schema and logsource routing both on. */
  readonly routingPruning?: () => SchemaReport['routing_pruning'];
}

/** The observer's `--schema-config` signatures; a file that does not load only logs: the built-ins classify alone (§13.3). */
async function observerSignatures(path: string | undefined, log: Logger): Promise<readonly SchemaSignature[]> {
  if (path === undefined) return [];
  try {
    return (await readSchemaConfig(path)).file.schemas ?? [];
  } catch (error) {
    log.warn({ error: error instanceof Error ? error.message : String(error) }, 'schema config not loaded: the schema observer uses the built-in signatures');
    return [];
  }
}

/** What detection observes for the observers; undefined when both are off. */
export async function observeSettings(config: DaemonConfig, log: Logger): Promise<ObserveSettings | undefined> {
  const fields = config.engine.observe_fields;
  const discover = config.schema.discover;
  if (!fields && !config.schema.observe && !discover) return undefined;
  if (!config.schema.observe && !discover) return { fields };
  return { fields, schemas: { signatures: await observerSignatures(config.schema.config, log.child({ component: 'schemas' })), discover } };
}

export function createDaemonObservers(config: DaemonConfig, observe: ObserveSettings | undefined, deps: ObserverDeps): DaemonObservers | undefined {
  if (observe === undefined) return undefined;
  const now = () => deps.clock.now();
  let fieldsOf: { ruleSet: RuleSet; fields: RuleFieldSet } | undefined;
  const ruleFields = (): RuleFieldSet => {
    const ruleSet = deps.ruleSet();
    if (fieldsOf?.ruleSet !== ruleSet) fieldsOf = { ruleSet, fields: ruleFieldSet(ruleSet) };
    return fieldsOf.fields;
  };
  const fields = observe.fields ? new FieldObserver(config.engine.observe_fields_max_keys, ruleFields, now) : undefined;
  const schemas = observe.schemas !== undefined ? new SchemaObserver(observe.schemas.discover, now) : undefined;
  const stage = new ObserveStage({
    metrics: deps.metrics,
    ...(fields !== undefined ? { fields } : {}),
    ...(schemas !== undefined ? { schemas } : {}),
  });
  /** Every observer call refreshes the metrics after it ran (§13.1, §13.3). */
  const refreshed = <T>(value: T): T => {
    stage.refreshMetrics();
    return value;
  };
  return {
    observed: (batch) => stage.merge(batch),
    refreshMetrics: () => stage.refreshMetrics(),
    ...(fields !== undefined
      ? {
          fieldObserver: {
            report: (page) => refreshed(fields.report(page)),
            unknown: (page) => refreshed(fields.unknown(page)),
            missing: (page) => refreshed(fields.missing(page)),
            reset: () => refreshed(fields.reset()),
          },
        }
      : {}),
    ...(schemas !== undefined
      ? {
          schemaObserver: {
            report: () => refreshed({ ...schemas.report(), routing_pruning: deps.routingPruning?.() ?? [] }),
            reset: () => refreshed(schemas.reset()),
          },
        }
      : {}),
    ...(schemas?.discovering === true ? { schemaDiscovery: { suggestions: () => suggestSignatures(schemas.discoverySample()) } } : {}),
  };
}
