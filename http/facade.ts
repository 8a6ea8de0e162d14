import type { ClusterRecord, CorrelationGroupSnapshot, CorrelationSummary } from '../protocol/index.js';
import type {
  DispositionSummary,
  DynamicSourceInfo,
  IncidentRecord,
  JsonObject,
  RiskEntity,
  RulesRecord,
  Silence,
  StatusRecord,
} from '../protocol/index.js';
import type { CorrelationStateQuery, PageQuery, SilenceCreateBody } from '../protocol/index.js';
import type { FieldsReport, FieldsReset, MissingFieldPage, SchemaReport, SchemaSuggestions, SchemasReset, UnknownFieldPage } from '../protocol/index.js';
import type { EventIngest, OtlpIngest } from '../protocol/index.js';
import type { StateReport } from '../state/index.js';
import type { AuditLog } from './audited-request.js';
import type { UiAssets } from './ui-routes.js';
import type { LiveStream, TailRequest, TapRequest } from '../protocol/index.js';

// Re-exported: the facade's surface in one place (the types live in protocol/, shared with streams/).
export { IngestClosedError, IngestTooLargeError, type EventIngest, type OtlpIngest } from '../protocol/index.js';
export type { LiveSink, LiveStream, TailRequest, TapRequest } from '../protocol/index.js';

/**
 * What the HTTP layer needs from the daemon. Optional surfaces of the contract are optional
 * members: an absent member means the feature is off (or not built) and its routes answer the
 * documented disabled response or empty listing. The composition root implements this.
 */
export interface DaemonFacade {
  /**
   * `reloadError`: why the last reload failed, while that keeps the daemon not ready; `stateError`: the
   * state directory was deleted or replaced under the daemon (it takes precedence).
   */
  readiness(): { readonly ready: boolean; readonly reloadError?: string; readonly stateError?: string };
  status(): StatusRecord;
  rules(): RulesRecord;
  correlations(): readonly CorrelationSummary[];
  /** Groups filtered by correlation id/name/title (`id`) and display-key substring (`group`). */
  correlationState(filter: CorrelationStateQuery): {
    readonly correlations: readonly CorrelationSummary[];
    readonly groups: readonly CorrelationGroupSnapshot[];
  };
  /** Asynchronous: completion shows on /readyz and the reload counters. */
  triggerReload(): 'triggered' | 'already_pending';
  metrics(): Promise<{ readonly contentType: string; readonly text: string }>;

  /** Present only with `--input http`. */
  readonly ingest?: EventIngest;
  /** OTLP log ingest (`POST /v1/logs`, gRPC `LogsService/Export`); absent answers 503 `OTLP ingest disabled`. */
  readonly otlp?: OtlpIngest;
  /** Present with an alert pipeline group block; absent lists nothing. */
  readonly incidents?: () => readonly IncidentRecord[];
  /** One incident and its bundle (daemon-semantics §9.11); absent behaves as grouping off. */
  readonly incidentApi?: IncidentApi;
  /** Present with a risk accumulator; absent lists nothing. */
  readonly riskEntities?: () => readonly RiskEntity[];
  readonly silences: SilenceStore;
  /** Present when pipelines declare dynamic sources. */
  readonly sources?: DynamicSources;
  readonly dispositions?: Dispositions;
  readonly fieldObserver?: FieldObserver;
  readonly schemaObserver?: SchemaObserver;
  /** Present with `--discover-schemas`. */
  readonly schemaDiscovery?: { suggestions(): SchemaSuggestions };
  readonly tap?: LiveStream<TapRequest>;
  readonly tail?: LiveStream<TailRequest>;
  /** Present when the audit trail is on (a state DB and `daemon.api.audit.enabled` not false). */
  readonly audit?: AuditLog;
  /** The built web console when `daemon.ui` is on; absent: `/ui/` answers 404 `web console disabled`. */
  readonly ui?: UiAssets;
  /** The state directory's report (`sigmad state inspect`); present with `--state-db`. */
  readonly stateReport?: () => StateReport;
  /** Present in cluster mode (`--cluster`): this node's view of the cluster. */
  readonly cluster?: () => ClusterRecord;
}


export type SilenceCreateResult =
  | { readonly ok: true; readonly id: string }
  | { readonly ok: false; readonly reason: 'invalid_regex' | 'invalid'; readonly detail: string }
  | { readonly ok: false; readonly reason: 'limit_reached' };

/** Silences; the daemon's journals a creation or deletion before it resolves (issue 13). */
export interface SilenceStore {
  list(): readonly Silence[];
  create(body: SilenceCreateBody): SilenceCreateResult | Promise<SilenceCreateResult>;
  remove(id: string): boolean | Promise<boolean>;
}

export interface IncidentApi {
  /** An alert pipeline with a group block is loaded. */
  grouping(): boolean;
  /** An open incident's API snapshot (`trigger: "snapshot"`, `bundle_ready`). */
  get(id: string): JsonObject | undefined;
  bundle(id: string, format: 'json' | 'markdown'): { readonly contentType: string; readonly body: string } | undefined;
}

export interface DynamicSources {
  list(): readonly DynamicSourceInfo[];
  /** Re-resolve one source, or all when `sourceId` is undefined. */
  resolve(sourceId?: string): 'triggered' | 'already_pending';
  invalidate(sourceId: string): void;
}

export interface Dispositions {
  ratios(): JsonObject;
  /** Records are unchecked JSON values; the loop validates each and reports rejects. */
  ingest(records: readonly unknown[]): Promise<DispositionSummary>;
  /** A whole body that did not parse (counted as `reason="parse"`). */
  parseFailed?(): void;
}

export interface FieldObserver {
  report(page: PageQuery): FieldsReport;
  unknown(page: PageQuery): UnknownFieldPage;
  missing(page: PageQuery): MissingFieldPage;
  reset(): FieldsReset;
}

export interface SchemaObserver {
  report(): SchemaReport;
  reset(): SchemasReset;
}
