import { Counter, Gauge, Histogram, Registry, type LabelValues } from 'prom-client';
import { CORRELATION_TYPES } from './correlation-result.js';

/**
 * The one metrics catalogue: every metric of `spec/interface.md` declared once with its type,
 * labels, help and buckets. Components get typed handles from `createMetrics` and bind label
 * children once; nobody else names a metric.
 */

/** prom-client's default boundaries; the contract asks every histogram to use them. */
export const DEFAULT_BUCKETS: readonly number[] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * When a family is registered (and so rendered):
 * - `always`: from the first scrape (unlabelled series at zero, labelled families once used);
 * - the others only when `createMetrics` is told the feature is on.
 */
export type MetricGroup = 'always' | 'sources' | 'enrichment' | 'alert_pipeline' | 'risk' | 'otlp' | 'tls' | 'dispositions' | 'cluster';

interface MetricDecl {
  readonly type: 'counter' | 'gauge' | 'histogram';
  readonly help: string;
  readonly labels: readonly string[];
  readonly group: MetricGroup;
  /** Closed value sets of labels; with `preregister` every combination renders at zero. */
  readonly values?: Readonly<Record<string, readonly string[]>>;
  readonly preregister?: true;
  /** Histogram buckets where the semantics name them; DEFAULT_BUCKETS otherwise. */
  readonly buckets?: readonly number[];
}

const DEDUP_ACTIONS = ['emitted', 'folded', 'repeat', 'resolved'] as const;
const INCIDENT_TRIGGERS = ['group_wait', 'group_interval', 'repeat', 'resolved'] as const;
const VERDICTS = ['true_positive', 'false_positive', 'benign_true_positive'] as const;

export const METRICS = {
  // Engine core
  svc_events_processed_total: { type: 'counter', help: 'Decoded events evaluated.', labels: [], group: 'always' },
  svc_events_parse_errors_total: {
    type: 'counter',
    help: 'Non-blank input lines that failed to parse or exceeded the line size limit.',
    labels: [],
    group: 'always',
  },
  svc_detection_matches_total: { type: 'counter', help: 'Detection results.', labels: [], group: 'always' },
  svc_correlation_matches_total: { type: 'counter', help: 'Correlation results.', labels: [], group: 'always' },
  svc_detection_rules_loaded: { type: 'gauge', help: 'Loaded detection rules.', labels: [], group: 'always' },
  svc_correlation_rules_loaded: { type: 'gauge', help: 'Loaded correlation rules.', labels: [], group: 'always' },
  svc_correlation_state_entries: {
    type: 'gauge',
    help: 'Active correlation state entries.',
    labels: [],
    group: 'always',
  },
  // Beyond the contract's catalogue (issue 6): correlation groups a rule change cost.
  svc_correlation_state_dropped_total: {
    type: 'counter',
    help: 'Correlation groups dropped because their correlation changed or was removed (at reload or start-up).',
    labels: ['reason'],
    group: 'always',
    values: { reason: ['changed', 'removed'] },
    preregister: true,
  },
  svc_reloads_total: { type: 'counter', help: 'Reload attempts.', labels: [], group: 'always' },
  svc_reloads_failed_total: { type: 'counter', help: 'Failed reload steps.', labels: [], group: 'always' },
  svc_uptime_seconds: { type: 'gauge', help: 'Seconds since the daemon started.', labels: [], group: 'always' },
  svc_input_queue_depth: { type: 'gauge', help: 'Events queued for the engine.', labels: [], group: 'always' },
  svc_output_queue_depth: { type: 'gauge', help: 'Result items queued for the sinks.', labels: [], group: 'always' },
  svc_back_pressure_events_total: {
    type: 'counter',
    help: 'Enqueues that found the input queue full.',
    labels: [],
    group: 'always',
  },
  svc_event_processing_seconds: {
    type: 'histogram',
    help: 'Evaluation time per event (batch time divided by events).',
    labels: [],
    group: 'always',
  },
  svc_pipeline_latency_seconds: {
    type: 'histogram',
    help: 'Per batch, from dequeue of its first event to end of dispatch.',
    labels: [],
    group: 'always',
  },
  svc_batch_size: { type: 'histogram', help: 'Events per processed batch.', labels: [], group: 'always' },
  svc_dlq_events_total: { type: 'counter', help: 'Entries written to the dead-letter queue.', labels: [], group: 'always' },
  svc_sink_queue_depth: { type: 'gauge', help: 'Items queued per sink.', labels: ['sink'], group: 'always' },
  svc_sink_retries_total: { type: 'counter', help: 'Delivery retries per sink.', labels: ['sink'], group: 'always' },
  svc_sink_dropped_total: {
    type: 'counter',
    help: 'Items dropped because a lossy (on_full=drop) sink queue was full.',
    labels: ['sink'],
    group: 'always',
  },
  svc_sink_delivery_failures_total: {
    type: 'counter',
    help: 'Items whose retries were exhausted (routed to the DLQ).',
    labels: ['sink'],
    group: 'always',
  },
  svc_webhook_requests_total: {
    type: 'counter',
    help: 'Webhook requests by outcome.',
    labels: ['webhook_id', 'outcome'],
    group: 'always',
    values: { outcome: ['success', 'permanent_failure', 'rate_limited_wait'] },
  },
  svc_webhook_request_duration_seconds: {
    type: 'histogram',
    help: 'Webhook request duration.',
    labels: ['webhook_id'],
    group: 'always',
  },
  // Per rule, after the first match
  svc_detection_matches_by_rule_total: {
    type: 'counter',
    help: 'Detection results per rule title and level.',
    labels: ['rule_title', 'level'],
    group: 'always',
  },
  svc_correlation_matches_by_rule_total: {
    type: 'counter',
    help: 'Correlation results per rule title, level and correlation type.',
    labels: ['rule_title', 'level', 'correlation_type'],
    group: 'always',
    values: { correlation_type: CORRELATION_TYPES },
  },
  // Dynamic sources
  svc_source_resolves_total: {
    type: 'counter',
    help: 'Dynamic source resolution attempts.',
    labels: ['source_id', 'source_type'],
    group: 'sources',
    values: { source_type: ['file', 'http', 'command', 'nats'] },
  },
  svc_source_resolve_errors_total: {
    type: 'counter',
    help: 'Failed dynamic source resolutions.',
    labels: ['source_id', 'error_kind'],
    group: 'sources',
    values: { error_kind: ['Fetch', 'Parse', 'Extract', 'Timeout', 'ResourceLimit'] },
  },
  svc_source_resolve_seconds: { type: 'histogram', help: 'Dynamic source resolution time.', labels: [], group: 'sources', buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] },
  svc_source_cache_hits_total: {
    type: 'counter',
    help: 'Cached source data served on resolution failure.',
    labels: [],
    group: 'sources',
  },
  svc_source_last_resolved_timestamp: {
    type: 'gauge',
    help: 'Unix time of the last successful resolution.',
    labels: ['source_id'],
    group: 'sources',
  },
  // Enrichment
  svc_enrichment_total: {
    type: 'counter',
    help: 'Enricher calls by outcome.',
    labels: ['enricher_id', 'kind', 'status'],
    group: 'enrichment',
    values: { kind: ['detection', 'correlation'], status: ['success', 'skip', 'error', 'timeout', 'drop'] },
  },
  svc_enrichment_duration_seconds: {
    type: 'histogram',
    help: 'Enricher call duration.',
    labels: ['enricher_id', 'kind'],
    group: 'enrichment',
    values: { kind: ['detection', 'correlation'] },
    buckets: [0.0005, 0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  },
  svc_enrichment_queue_depth: { type: 'gauge', help: 'Results waiting for enrichment.', labels: [], group: 'enrichment' },
  svc_enrichment_http_cache_hits_total: {
    type: 'counter',
    help: 'HTTP enricher cache hits.',
    labels: ['enricher_id'],
    group: 'enrichment',
  },
  svc_enrichment_http_cache_misses_total: {
    type: 'counter',
    help: 'HTTP enricher cache misses.',
    labels: ['enricher_id'],
    group: 'enrichment',
  },
  svc_enrichment_http_cache_expirations_total: {
    type: 'counter',
    help: 'HTTP enricher cache expirations.',
    labels: ['enricher_id'],
    group: 'enrichment',
  },
  // Alert pipeline
  svc_dedup_results_total: {
    type: 'counter',
    help: 'Deduplication decisions.',
    labels: ['action'],
    group: 'alert_pipeline',
    values: { action: DEDUP_ACTIONS },
    preregister: true,
  },
  svc_dedup_store_entries: { type: 'gauge', help: 'Deduplication store entries.', labels: [], group: 'alert_pipeline' },
  svc_dedup_evictions_total: { type: 'counter', help: 'Deduplication store evictions.', labels: [], group: 'alert_pipeline' },
  svc_dedup_summaries_emitted_total: {
    type: 'counter',
    help: 'Dedup repeat and resolved records emitted.',
    labels: [],
    group: 'alert_pipeline',
  },
  svc_incidents_open: { type: 'gauge', help: 'Open incidents.', labels: [], group: 'alert_pipeline' },
  svc_incidents_emitted_total: {
    type: 'counter',
    help: 'Incident records emitted by trigger.',
    labels: ['trigger'],
    group: 'alert_pipeline',
    values: { trigger: INCIDENT_TRIGGERS },
    preregister: true,
  },
  svc_incident_results_total: { type: 'counter', help: 'Results grouped into incidents.', labels: [], group: 'alert_pipeline' },
  svc_incident_overmerge_total: {
    type: 'counter',
    help: 'Incident grouping over-merge guards that fired.',
    labels: ['guard'],
    group: 'alert_pipeline',
    values: { guard: ['stop_value', 'cardinality_ceiling'] },
    preregister: true,
  },
  svc_silenced_total: { type: 'counter', help: 'Results muted by an active silence.', labels: [], group: 'alert_pipeline' },
  svc_silences_active: { type: 'gauge', help: 'Active silences.', labels: [], group: 'alert_pipeline' },
  svc_inhibited_total: {
    type: 'counter',
    help: 'Results muted by an inhibition rule.',
    labels: ['rule'],
    group: 'alert_pipeline',
  },
  svc_inhibit_sources_active: { type: 'gauge', help: 'Active inhibition sources.', labels: [], group: 'alert_pipeline' },
  svc_alert_pipeline_duration_seconds: {
    type: 'histogram',
    help: 'Alert pipeline time per item.',
    labels: [],
    group: 'alert_pipeline',
  },
  // Risk-based alerting
  svc_risk_annotations_total: {
    type: 'counter',
    help: 'Risk annotation decisions.',
    labels: ['action'],
    group: 'risk',
    values: { action: ['scored', 'no_entity', 'skipped'] },
    preregister: true,
  },
  svc_risk_annotation_score: { type: 'histogram', help: 'Risk scores annotated.', labels: [], group: 'risk', buckets: [0, 1, 5, 10, 25, 50, 100, 250, 500, 1000] },
  svc_risk_objects_total: { type: 'counter', help: 'Risk objects extracted.', labels: [], group: 'risk' },
  svc_risk_entities_open: { type: 'gauge', help: 'Open risk entities.', labels: [], group: 'risk' },
  svc_risk_state_entries: { type: 'gauge', help: 'Risk accumulator entries.', labels: [], group: 'risk' },
  svc_risk_evictions_total: { type: 'counter', help: 'Risk accumulator evictions.', labels: [], group: 'risk' },
  svc_risk_incidents_emitted_total: {
    type: 'counter',
    help: 'Risk incidents emitted by trigger.',
    labels: ['trigger'],
    group: 'risk',
    values: { trigger: ['score', 'tactic_count'] },
    preregister: true,
  },
  svc_risk_incident_results_total: { type: 'counter', help: 'Results carried by risk incidents.', labels: [], group: 'risk' },
  svc_risk_layer_duration_seconds: {
    type: 'histogram',
    help: 'Risk layer time per item.',
    labels: [],
    group: 'risk',
    buckets: [1e-5, 5e-5, 1e-4, 5e-4, 1e-3, 5e-3, 0.01, 0.05, 0.1],
  },
  // OTLP
  svc_otlp_requests_total: {
    type: 'counter',
    help: 'OTLP export requests.',
    labels: ['transport', 'encoding'],
    group: 'otlp',
    values: { transport: ['http', 'grpc'] },
  },
  svc_otlp_log_records_total: { type: 'counter', help: 'OTLP log records received.', labels: [], group: 'otlp' },
  svc_otlp_errors_total: {
    type: 'counter',
    help: 'Rejected OTLP export requests.',
    labels: ['transport', 'reason'],
    group: 'otlp',
    values: {
      transport: ['http', 'grpc'],
      reason: ['unsupported_content_type', 'decompression', 'decode', 'channel_closed'],
    },
  },
  // TLS
  svc_tls_certificate_expiry_seconds: {
    type: 'gauge',
    help: "Seconds until the server certificate's not_after (negative once expired).",
    labels: [],
    group: 'tls',
  },
  svc_tls_active_connections: { type: 'gauge', help: 'Open TLS connections.', labels: [], group: 'tls' },
  // Beyond the contract's catalogue (issue 18, daemon-semantics §18.5-18.6): API auth and audit trail.
  svc_api_auth_failures_total: {
    type: 'counter',
    help: 'API requests refused by bearer-token auth.',
    labels: ['reason'],
    group: 'always',
    values: { reason: ['unauthorized', 'forbidden'] },
    preregister: true,
  },
  svc_audit_records_total: { type: 'counter', help: 'Control-plane audit records committed.', labels: [], group: 'always' },
  svc_audit_write_errors_total: {
    type: 'counter',
    help: 'Audit records that failed to commit or to reach the audit sink.',
    labels: [],
    group: 'always',
  },
  // Beyond the contract's catalogue (issue 21): cluster mode, rendered with --cluster only.
  svc_cluster_partitions_owned: { type: 'gauge', help: 'Partitions of the correlation state this node owns.', labels: [], group: 'cluster' },
  svc_cluster_partition_lag: { type: 'gauge', help: 'Hits of an owned partition not yet processed.', labels: ['partition'], group: 'cluster' },
  svc_cluster_takeovers_total: { type: 'counter', help: 'Partitions this node acquired (snapshot loaded, hits replayed).', labels: [], group: 'cluster' },
  svc_cluster_hits_published_total: { type: 'counter', help: 'Hits published to partition owners.', labels: [], group: 'cluster' },
  // Always rendered, zero unless the feature is enabled
  svc_fields_observed_total: { type: 'counter', help: 'Events seen by the field observer.', labels: [], group: 'always' },
  svc_fields_observer_unique_keys: {
    type: 'gauge',
    help: 'Distinct field keys observed (saturates at --observe-fields-max-keys).',
    labels: [],
    group: 'always',
  },
  svc_fields_observer_overflow_dropped_total: {
    type: 'counter',
    help: 'New field keys dropped beyond the observer cap.',
    labels: [],
    group: 'always',
  },
  svc_events_by_schema_total: { type: 'counter', help: 'Events classified per schema.', labels: ['schema'], group: 'always' },
  svc_events_unknown_schema_total: { type: 'counter', help: 'Events matching no schema.', labels: [], group: 'always' },
  svc_events_ambiguous_schema_total: {
    type: 'counter',
    help: 'Events where two different signatures tied at the top specificity.',
    labels: [],
    group: 'always',
  },
  svc_unknown_schema_clusters: {
    type: 'gauge',
    help: 'Clusters of unknown shapes (non-zero only with --discover-schemas).',
    labels: [],
    group: 'always',
  },
  svc_rules_pruned_by_logsource_total: {
    type: 'counter',
    help: 'Rule evaluations skipped by logsource routing.',
    labels: [],
    group: 'always',
  },
  svc_events_without_logsource_total: {
    type: 'counter',
    help: 'Events with no extractable logsource (evaluated against every rule).',
    labels: [],
    group: 'always',
  },
  svc_schema_rules_eligible: { type: 'gauge', help: 'Rules eligible per schema.', labels: ['schema'], group: 'always' },
  svc_schema_rules_pruned: { type: 'gauge', help: 'Rules pruned per schema.', labels: ['schema'], group: 'always' },
  svc_tap_sessions_total: { type: 'counter', help: 'Tap sessions started.', labels: [], group: 'always' },
  svc_tap_active_sessions: { type: 'gauge', help: 'Running tap sessions.', labels: [], group: 'always' },
  svc_tap_events_streamed_total: { type: 'counter', help: 'Events streamed to tap sessions.', labels: [], group: 'always' },
  svc_tap_events_dropped_total: {
    type: 'counter',
    help: 'Tap events dropped (full buffer, or unparseable line in a redacting raw capture).',
    labels: [],
    group: 'always',
  },
  svc_tail_active_sessions: { type: 'gauge', help: 'Running detection tail sessions.', labels: [], group: 'always' },
  svc_tail_detections_dropped_total: {
    type: 'counter',
    help: 'Detections dropped by full tail session buffers.',
    labels: [],
    group: 'always',
  },
  // Triage loop
  svc_rule_false_positive_ratio: {
    type: 'gauge',
    help: 'False-positive ratio per rule (absent until the rule reaches min_sample).',
    labels: ['rule_title'],
    group: 'dispositions',
  },
  svc_dispositions_total: {
    type: 'counter',
    help: 'Dispositions recorded per rule and verdict.',
    labels: ['rule_title', 'verdict'],
    group: 'dispositions',
    values: { verdict: VERDICTS },
  },
  svc_disposition_ingest_total: {
    type: 'counter',
    help: 'Disposition records ingested per source and result.',
    labels: ['source', 'result'],
    group: 'dispositions',
    values: { source: ['api', 'file', 'http', 'nats'], result: ['accepted', 'duplicate', 'rejected'] },
    preregister: true,
  },
  svc_disposition_ingest_errors_total: {
    type: 'counter',
    help: 'Disposition ingest errors.',
    labels: ['reason'],
    group: 'dispositions',
    values: { reason: ['parse', 'validation'] },
    preregister: true,
  },
} as const satisfies Readonly<Record<string, MetricDecl>>;

type Catalogue = typeof METRICS;
export type MetricName = keyof Catalogue;
type LabelsOf<N extends MetricName> = Catalogue[N]['labels'][number];

/** The prom-client handle type of each metric, with its label names as the type parameter. */
export type MetricHandles = {
  readonly [N in MetricName]: Catalogue[N]['type'] extends 'counter'
    ? Counter<LabelsOf<N>>
    : Catalogue[N]['type'] extends 'gauge'
      ? Gauge<LabelsOf<N>>
      : Histogram<LabelsOf<N>>;
};

export interface Metrics {
  readonly registry: Registry;
  readonly handles: MetricHandles;
}

/** Unlabelled gauges, the ones a scrape can read from a function. */
type ScalarGaugeName = {
  [N in MetricName]: Catalogue[N]['type'] extends 'gauge' ? (Catalogue[N]['labels'] extends readonly [] ? N : never) : never;
}[MetricName];

export interface CreateMetricsOptions {
  /** Feature groups whose families are registered besides `always` ones. */
  readonly groups?: readonly Exclude<MetricGroup, 'always'>[];
  /** Gauges set from a function at every scrape (e.g. `svc_uptime_seconds` from the daemon clock). */
  readonly onScrape?: Partial<Record<ScalarGaugeName, () => number>>;
}

/**
 * Create one handle per catalogue entry. Families of groups that are off get unregistered handles,
 * so components never test for presence and nothing renders for a disabled feature.
 */
export function createMetrics(registry: Registry = new Registry(), options: CreateMetricsOptions = {}): Metrics {
  const enabled = new Set<MetricGroup>(['always', ...(options.groups ?? [])]);
  const handles: Record<string, Counter | Gauge | Histogram> = {};
  for (const [name, decl] of Object.entries(METRICS) as [MetricName, MetricDecl][]) {
    const config = {
      name,
      help: decl.help,
      labelNames: decl.labels,
      registers: enabled.has(decl.group) ? [registry] : [],
    };
    const read = (options.onScrape as Partial<Record<string, () => number>> | undefined)?.[name];
    const handle =
      decl.type === 'counter'
        ? new Counter(config)
        : decl.type === 'gauge'
          ? new Gauge({ ...config, ...(read !== undefined ? { collect: scrapeWith(read) } : {}) })
          : new Histogram({ ...config, buckets: [...(decl.buckets ?? DEFAULT_BUCKETS)] });
    if (decl.preregister === true) preregister(handle, decl);
    handles[name] = handle;
  }
  return { registry, handles: handles as unknown as MetricHandles };
}

function scrapeWith(read: () => number): (this: Gauge) => void {
  return function (this: Gauge) {
    this.set(read());
  };
}

/** Zero every combination of a family's closed label sets so it renders from the first scrape. */
function preregister(handle: Counter | Gauge | Histogram, decl: MetricDecl): void {
  let combos: Record<string, string>[] = [{}];
  for (const label of decl.labels) {
    const values = decl.values?.[label] ?? [];
    combos = combos.flatMap((c) => values.map((v) => ({ ...c, [label]: v })));
  }
  for (const labels of combos) zeroSeries(handle, labels);
}

function zeroSeries<T extends string>(handle: Counter<T> | Gauge<T> | Histogram<T>, labels: LabelValues<T>): void {
  if (handle instanceof Histogram) handle.zero(labels);
  else handle.inc(labels, 0);
}

/**
 * Bind a label child once, at build, creating its series at zero: the contract's "pre-registered
 * per sink / per enricher" families render from the first scrape, and hot paths only `inc`.
 */
export function bindZeroed<T extends string>(handle: Counter<T>, labels: LabelValues<T>): Counter.Internal;
export function bindZeroed<T extends string>(handle: Gauge<T>, labels: LabelValues<T>): Gauge.Internal<T>;
export function bindZeroed<T extends string>(handle: Histogram<T>, labels: LabelValues<T>): Histogram.Internal<T>;
export function bindZeroed<T extends string>(
  handle: Counter<T> | Gauge<T> | Histogram<T>,
  labels: LabelValues<T>,
): Counter.Internal | Gauge.Internal<T> | Histogram.Internal<T> {
  zeroSeries(handle, labels);
  return handle.labels(labels);
}
