// The field and schema observers of `sigmad daemon` (daemon-semantics §13.1–13.4), wired from the
// config: nothing is built when both are off, so the data path does no work for them.
import type { Logger } from 'pino';
import type { FieldObserver as FieldObserverApi, SchemaObserver as SchemaObserverApi } from '../http/index.js';
import type { DaemonConfig, MetricHandles, SchemaReport, SchemaSuggestions } from '../protocol/index.js';
import { ruleFieldSet, SchemaClassifier, suggestSignatures } from '../sigma/index.js';
import type { RuleFieldSet, RuleSet } from '../sigma/index.js';
import { FieldObserver, ObserveStage, SchemaObserver } from '../streams/index.js';
import type { Clock, DetectSettings } from '../streams/index.js';
import { readSchemaConfig } from './schema-config-file.js';

export interface DaemonObservers {
  /** Offer a batch's input lines (the batch processor's `observe` hook). */
  readonly observe: (lines: readonly string[]) => void;
  /** Advance the observer metrics (before each scrape). */
  readonly refreshMetrics: () => void;
  readonly fieldObserver?: FieldObserverApi;
  readonly schemaObserver?: SchemaObserverApi;
  readonly schemaDiscovery?: { suggestions(): SchemaSuggestions };
}

export interface ObserverDeps {
  readonly detect: DetectSettings;
  readonly clock: Clock;
  readonly metrics: MetricHandles;
  readonly log: Logger;
  /** The rule set in force (its field set is recomputed after each reload). */
  readonly ruleSet: () => RuleSet;
  /** Schema routing's per-schema pruning, with schema and logsource routing both on. */
  readonly routingPruning?: () => SchemaReport['routing_pruning'];
}

/** The observer classifier: built-ins plus `--schema-config` signatures; a file that does not load only logs (§13.3). */
async function observerClassifier(path: string | undefined, log: Logger): Promise<SchemaClassifier> {
  if (path === undefined) return new SchemaClassifier();
  try {
    return (await readSchemaConfig(path)).classifier;
  } catch (error) {
    log.warn({ error: error instanceof Error ? error.message : String(error) }, 'schema config not loaded: the schema observer uses the built-in signatures');
    return new SchemaClassifier();
  }
}

export async function createDaemonObservers(config: DaemonConfig, deps: ObserverDeps): Promise<DaemonObservers | undefined> {
  const observeFields = config.engine.observe_fields;
  const observeSchemas = config.schema.observe || config.schema.discover;
  if (!observeFields && !observeSchemas) return undefined;
  const now = () => deps.clock.now();
  let fieldsOf: { ruleSet: RuleSet; fields: RuleFieldSet } | undefined;
  const ruleFields = (): RuleFieldSet => {
    const ruleSet = deps.ruleSet();
    if (fieldsOf?.ruleSet !== ruleSet) fieldsOf = { ruleSet, fields: ruleFieldSet(ruleSet) };
    return fieldsOf.fields;
  };
  const fields = observeFields ? new FieldObserver(config.engine.observe_fields_max_keys, ruleFields, now) : undefined;
  const schemas = observeSchemas
    ? new SchemaObserver(await observerClassifier(config.schema.config, deps.log.child({ component: 'schemas' })), config.schema.discover, now)
    : undefined;
  const stage = new ObserveStage({
    format: deps.detect.format,
    syslogTzMinutes: deps.detect.syslogTzMinutes,
    now,
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
    observe: (lines) => stage.observe(lines),
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
