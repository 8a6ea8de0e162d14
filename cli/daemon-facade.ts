// The real daemon behind the HTTP routes: reads live state, never holds any of its own.
import type { StateReport } from '../state/index.js';
import type { Registry } from 'prom-client';
import { IngestClosedError, IngestTooLargeError } from '../http/index.js';
import type { AuditLog, DaemonFacade, Dispositions, DynamicSources, EventIngest, IncidentApi, OtlpIngest, SilenceStore, UiAssets } from '../http/index.js';
import type { ClusterRecord, IncidentRecord, RiskEntity, StatusRecord } from '../protocol/index.js';
import type { MetricHandles } from '../protocol/index.js';
import { QueueClosedError, UnitTooLargeError } from '../streams/index.js';
import type { DaemonObservers } from './daemon-observe.js';
import type { ActiveRules, BatchProcessor, Clock, HttpIngest, OtlpSource, TailFanout, TapFanout } from '../streams/index.js';

export interface FacadeParts {
  readonly rules: () => ActiveRules;
  readonly rulesPath: string;
  readonly readiness: () => { readonly ready: boolean; readonly reloadError?: string; readonly stateError?: string };
  readonly processor: BatchProcessor;
  readonly registry: Registry;
  readonly metrics: MetricHandles;
  readonly clock: Clock;
  readonly startedAt: number;
  readonly triggerReload: () => 'triggered' | 'already_pending';
  readonly silences: SilenceStore;
  readonly incidents?: () => readonly IncidentRecord[];
  readonly incidentApi?: IncidentApi;
  readonly riskEntities?: () => readonly RiskEntity[];
  readonly dispositions?: Dispositions;
  readonly ingest?: HttpIngest;
  readonly otlp?: OtlpSource;
  readonly tail?: TailFanout;
  readonly tap?: TapFanout;
  readonly observers?: DaemonObservers;
  readonly audit?: AuditLog;
  readonly ui?: UiAssets;
  /** Dynamic sources: the routes' backend and the status block (§11.5). */
  readonly sources?: { readonly api: DynamicSources; status(): NonNullable<StatusRecord['dynamic_sources']> };
  readonly stateReport?: () => StateReport;
  readonly cluster?: () => ClusterRecord;
}

export function createDaemonFacade(p: FacadeParts): DaemonFacade {
  const uptime = (): number => (p.clock.now() - p.startedAt) / 1000;
  const summaries = () => p.rules().runtime.summaries();
  return {
    readiness: p.readiness,
    status(): StatusRecord {
      const { ruleSet, runtime } = p.rules();
      const t = p.processor.totals;
      return {
        status: 'running',
        detection_rules: ruleSet.engine.rules.length,
        correlation_rules: ruleSet.correlations.correlations.length,
        correlation_state_entries: runtime.stateEntries,
        events_processed: t.events,
        detection_matches: t.detections,
        correlation_matches: t.correlations,
        uptime_seconds: uptime(),
        ...(p.sources !== undefined ? { dynamic_sources: p.sources.status() } : {}),
      };
    },
    rules() {
      const { ruleSet } = p.rules();
      return {
        detection_rules: ruleSet.engine.rules.length,
        correlation_rules: ruleSet.correlations.correlations.length,
        rules_path: p.rulesPath,
      };
    },
    correlations: summaries,
    correlationState(filter) {
      const correlations = summaries().filter(
        (c) => filter.id === undefined || c.id === filter.id || c.name === filter.id || c.title === filter.id,
      );
      const groups = p.rules().runtime.groupSnapshots({
        ...(filter.id !== undefined ? { id: filter.id } : {}),
        ...(filter.group !== undefined ? { group: filter.group } : {}),
      });
      return { correlations, groups };
    },
    triggerReload: p.triggerReload,
    async metrics() {
      p.metrics.svc_uptime_seconds.set(uptime());
      p.observers?.refreshMetrics();
      return { contentType: p.registry.contentType, text: await p.registry.metrics() };
    },
    silences: p.silences,
    ...(p.incidents !== undefined ? { incidents: p.incidents } : {}),
    ...(p.incidentApi !== undefined ? { incidentApi: p.incidentApi } : {}),
    ...(p.riskEntities !== undefined ? { riskEntities: p.riskEntities } : {}),
    ...(p.dispositions !== undefined ? { dispositions: p.dispositions } : {}),
    ...(p.ingest !== undefined ? { ingest: withIngestErrors(p.ingest) } : {}),
    ...(p.otlp !== undefined ? { otlp: withOtlpErrors(p.otlp) } : {}),
    ...(p.tail !== undefined ? { tail: p.tail } : {}),
    ...(p.tap !== undefined ? { tap: p.tap } : {}),
    ...(p.observers?.fieldObserver !== undefined ? { fieldObserver: p.observers.fieldObserver } : {}),
    ...(p.observers?.schemaObserver !== undefined ? { schemaObserver: p.observers.schemaObserver } : {}),
    ...(p.observers?.schemaDiscovery !== undefined ? { schemaDiscovery: p.observers.schemaDiscovery } : {}),
    ...(p.audit !== undefined ? { audit: p.audit } : {}),
    ...(p.ui !== undefined ? { ui: p.ui } : {}),
    ...(p.sources !== undefined ? { sources: p.sources.api } : {}),
    ...(p.stateReport !== undefined ? { stateReport: p.stateReport } : {}),
    ...(p.cluster !== undefined ? { cluster: p.cluster } : {}),
  };
}

/** The HTTP layer answers its own error types: 503 `event channel closed`, 413 for a keyed request too large. */
function withIngestErrors(source: HttpIngest): EventIngest {
  return {
    ingest: (batch, key) => source.ingest(batch, key).catch(rethrowIngestError),
  };
}

function withOtlpErrors(source: OtlpSource): OtlpIngest {
  return {
    export: (transport, encoding, events) => source.export(transport, encoding, events).catch(rethrowIngestError),
    rejected: source.rejected,
  };
}

function rethrowIngestError(error: unknown): never {
  if (error instanceof QueueClosedError) throw new IngestClosedError(error.accepted);
  throw error instanceof UnitTooLargeError ? new IngestTooLargeError(error.capacity) : error;
}
