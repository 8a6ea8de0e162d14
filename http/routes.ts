import {
  BundleQuery,
  CorrelationStateQuery,
  IdParams,
  PageQuery,
  SilenceCreateBody,
  SourceIdParams,
  SourceResolveBody,
  TailQuery,
  TapQuery,
} from '../protocol/index.js';
import {
  CacheInvalidatedResponse,
  ClusterResponse,
  CorrelationListResponse,
  CorrelationStateResponse,
  DispositionSummary,
  HealthResponse,
  IncidentListResponse,
  IngestSummary,
  ReadyResponse,
  ReloadResponse,
  ResolveResponse,
  RiskListResponse,
  RulesRecord,
  SilenceCreatedResponse,
  SilenceDeletedResponse,
  SilenceListResponse,
  SourceListResponse,
  StatusRecord,
} from '../protocol/index.js';
import { AuditListResponse, AuditQuery, parseDuration } from '../protocol/index.js';
import { StateReport } from '../state/index.js';
import type { ApiErrorCode } from '../protocol/index.js';
import { dispositionBodyError, parseDispositionBody } from './disposition-body.js';
import { IngestClosedError, IngestTooLargeError, type LiveStream } from './facade.js';
import type { Res } from './handler.js';
import { splitIngestLines } from './ingest-lines.js';
import { createNdjsonStream } from './ndjson-stream.js';
import { otlpLogsRoute } from './otlp-logs-route.js';
import { sendError, sendJson } from './respond.js';
import { UI_ROUTES } from './ui-routes.js';
import { defineRoute, type Route } from './route.js';

/** Largest NDJSON ingest body; each line is further capped at MAX_LINE_BYTES. */
export const INGEST_MAX_BODY_BYTES = 16 * 1_048_576;
const TAP_DEFAULT_DURATION_MS = 30_000;

/** Every route of the contract's summary table (OTLP/gRPC aside, which is not HTTP/1.1). */
export const ROUTES: readonly Route[] = [
  defineRoute({
    method: 'GET',
    path: '/healthz',
    schema: { response: HealthResponse },
    handle: (_req, res) => sendJson(res, 200, { status: 'ok' }),
  }),
  defineRoute({
    method: 'GET',
    path: '/readyz',
    schema: { response: ReadyResponse },
    handle: (_req, res, d) => {
      const r = d.readiness();
      if (r.ready) sendJson(res, 200, { status: 'ready', rules_loaded: true });
      else if (r.stateError !== undefined) sendError(res, 'state_lost', { reason: r.stateError });
      else if (r.reloadError !== undefined) sendError(res, 'reload_failed', { reason: r.reloadError });
      else sendError(res, 'not_ready');
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/metrics',
    schema: {},
    handle: async (_req, res, d) => {
      const { contentType, text } = await d.metrics();
      if (!res.closed) res.status(200).header('content-type', contentType).end(text);
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/v1/status',
    schema: { response: StatusRecord },
    handle: (_req, res, d) => sendJson(res, 200, d.status()),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/v1/rules',
    schema: { response: RulesRecord },
    handle: (_req, res, d) => sendJson(res, 200, d.rules()),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/v1/correlations',
    schema: { response: CorrelationListResponse },
    handle: (_req, res, d) => {
      const correlations = d.correlations();
      sendJson(res, 200, { correlations, count: correlations.length });
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/v1/correlations/state',
    schema: { query: CorrelationStateQuery, response: CorrelationStateResponse },
    handle: (req, res, d) => {
      const { correlations, groups } = d.correlationState(req.input.query);
      sendJson(res, 200, { correlations, groups, count: groups.length });
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/v1/cluster',
    schema: { response: ClusterResponse },
    feature: { select: (d) => d.cluster, disabled: 'cluster_disabled' },
    handle: (_req, res, _d, cluster) => sendJson(res, 200, cluster()),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/v1/incidents',
    schema: { response: IncidentListResponse },
    handle: (_req, res, d) => {
      const incidents = d.incidents?.() ?? [];
      sendJson(res, 200, { count: incidents.length, incidents });
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/v1/incidents/{id}',
    schema: { params: IdParams },
    handle: (req, res, d) => {
      const { id } = req.input.params;
      if (d.incidentApi?.grouping() !== true) return sendError(res, 'incident_grouping_disabled');
      const incident = d.incidentApi.get(id);
      return incident === undefined ? sendError(res, 'incident_not_found', { incident_id: id }) : sendJson(res, 200, incident);
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/v1/incidents/{id}/bundle',
    schema: { params: IdParams, query: BundleQuery },
    handle: (req, res, d) => {
      const { id } = req.input.params;
      const asked = req.input.query.format ?? 'json';
      const format = asked === 'json' ? 'json' : asked === 'markdown' || asked === 'md' ? 'markdown' : undefined;
      if (format === undefined) return sendError(res, 'bundle_format_unknown', { format: asked });
      if (d.incidentApi?.grouping() !== true) return sendError(res, 'incident_grouping_disabled');
      const incident = d.incidentApi.get(id);
      if (incident === undefined) return sendError(res, 'incident_not_found', { incident_id: id });
      if (incident['bundle_ready'] !== true) return sendError(res, 'incident_batching', { incident_id: id });
      const bundle = d.incidentApi.bundle(id, format);
      if (bundle === undefined) return sendError(res, 'incident_not_found', { incident_id: id });
      if (!res.closed) res.status(200).header('content-type', bundle.contentType).end(bundle.body);
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/v1/risk',
    schema: { response: RiskListResponse },
    handle: (_req, res, d) => {
      const entities = d.riskEntities?.() ?? [];
      sendJson(res, 200, { count: entities.length, entities });
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/v1/silences',
    schema: { response: SilenceListResponse },
    handle: (_req, res, d) => {
      const silences = d.silences.list();
      sendJson(res, 200, { count: silences.length, silences });
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/api/v1/silences',
    schema: { body: SilenceCreateBody, invalid: 'silence_invalid', response: SilenceCreatedResponse },
    handle: async (req, res, d) => {
      const created = await d.silences.create(req.input.body);
      if (created.ok) return sendJson(res, 201, { status: 'created', id: created.id });
      if (created.reason === 'limit_reached') return sendError(res, 'silences_limit_reached');
      const regex = created.reason === 'invalid_regex' || created.detail.includes('regex');
      return sendError(res, regex ? 'silence_regex_invalid' : 'silence_invalid', { detail: created.detail });
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/api/v1/silences/{id}',
    schema: { params: IdParams, response: SilenceDeletedResponse },
    handle: async (req, res, d) =>
      (await d.silences.remove(req.input.params.id))
        ? sendJson(res, 200, { status: 'deleted', id: req.input.params.id })
        : sendError(res, 'silence_not_found', { id: req.input.params.id }),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/v1/dispositions',
    schema: {},
    feature: { select: (d) => d.dispositions, disabled: 'dispositions_disabled' },
    handle: (_req, res, _d, dispositions) => sendJson(res, 200, dispositions.ratios()),
  }),
  defineRoute({
    method: 'POST',
    path: '/api/v1/dispositions',
    schema: { response: DispositionSummary },
    feature: { select: (d) => d.dispositions, disabled: 'dispositions_disabled' },
    handle: async (req, res, _d, dispositions) => {
      const records = parseDispositionBody(req.body);
      if (records === undefined) {
        dispositions.parseFailed?.();
        return sendError(res, 'disposition_body_invalid', dispositionBodyError(req.body));
      }
      sendJson(res, 200, await dispositions.ingest(records));
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/api/v1/reload',
    schema: { response: ReloadResponse },
    handle: (_req, res, d) =>
      sendJson(res, 200, d.triggerReload() === 'triggered' ? { status: 'reload_triggered' } : { status: 'reload_triggered', coalesced: true }),
  }),
  defineRoute({
    method: 'POST',
    path: '/api/v1/events',
    schema: { response: IngestSummary },
    feature: { select: (d) => d.ingest, disabled: 'ingest_disabled' },
    maxBodyBytes: INGEST_MAX_BODY_BYTES,
    handle: async (req, res, _d, ingest) => {
      const { lines, rejected, tooLong } = splitIngestLines(req.body);
      const key = req.headers['idempotency-key'];
      try {
        const summary = await ingest.ingest({ lines, rejected }, key === undefined || key === '' ? undefined : key);
        if (tooLong) sendError(res, 'line_too_large', { ...summary });
        else sendJson(res, 200, summary);
      } catch (error) {
        if (error instanceof IngestTooLargeError) return sendError(res, 'keyed_request_too_large', { max_lines: error.maxLines });
        if (!(error instanceof IngestClosedError)) throw error;
        sendError(res, 'event_channel_closed', { accepted: error.accepted });
      }
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/v1/sources',
    schema: { response: SourceListResponse },
    handle: (_req, res, d) => sendJson(res, 200, { sources: d.sources?.list() ?? [] }),
  }),
  defineRoute({
    method: 'POST',
    path: '/api/v1/sources/resolve',
    schema: { body: SourceResolveBody, response: ResolveResponse },
    feature: { select: (d) => d.sources, disabled: 'sources_not_configured' },
    handle: (req, res, _d, sources) => {
      const id = req.input.body.source_id;
      if (sources.resolve(id) === 'already_pending') return sendError(res, 'resolve_already_pending');
      sendJson(res, 200, id === undefined ? { status: 'resolve_triggered' } : { status: 'resolve_triggered', source_id: id });
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/api/v1/sources/resolve/{source_id}',
    schema: { params: SourceIdParams, response: ResolveResponse },
    feature: { select: (d) => d.sources, disabled: 'sources_not_configured' },
    handle: (req, res, _d, sources) => {
      const id = req.input.params.source_id;
      if (sources.resolve(id) === 'already_pending') return sendError(res, 'resolve_already_pending', { source_id: id });
      sendJson(res, 200, { status: 'resolve_triggered', source_id: id });
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/api/v1/sources/cache/{source_id}',
    schema: { params: SourceIdParams, response: CacheInvalidatedResponse },
    // The contract answers 200 for any id, unknown ones and no sources at all included (a no-op).
    handle: (req, res, d) => {
      const id = req.input.params.source_id;
      d.sources?.invalidate(id);
      sendJson(res, 200, { status: 'invalidated', source_id: id });
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/v1/fields',
    schema: { query: PageQuery },
    feature: { select: (d) => d.fieldObserver, disabled: 'fields_disabled' },
    handle: (req, res, _d, fields) => sendJson(res, 200, fields.report(req.input.query)),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/v1/fields/unknown',
    schema: { query: PageQuery },
    feature: { select: (d) => d.fieldObserver, disabled: 'fields_disabled' },
    handle: (req, res, _d, fields) => sendJson(res, 200, fields.unknown(req.input.query)),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/v1/fields/missing',
    schema: { query: PageQuery },
    feature: { select: (d) => d.fieldObserver, disabled: 'fields_disabled' },
    handle: (req, res, _d, fields) => sendJson(res, 200, fields.missing(req.input.query)),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/api/v1/fields/observer',
    schema: {},
    feature: { select: (d) => d.fieldObserver, disabled: 'fields_disabled' },
    handle: (_req, res, _d, fields) => sendJson(res, 200, fields.reset()),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/v1/schemas',
    schema: {},
    feature: { select: (d) => d.schemaObserver, disabled: 'schemas_disabled' },
    handle: (_req, res, _d, schemas) => sendJson(res, 200, schemas.report()),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/api/v1/schemas',
    schema: {},
    feature: { select: (d) => d.schemaObserver, disabled: 'schemas_disabled' },
    handle: (_req, res, _d, schemas) => sendJson(res, 200, schemas.reset()),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/v1/schemas/suggestions',
    schema: {},
    // Observer off: the observer's 503; observing without discovery: the sampler's own 503 (§13.4).
    feature: { select: (d) => d.schemaObserver, disabled: 'schemas_disabled' },
    handle: (_req, res, d) => (d.schemaDiscovery === undefined ? sendError(res, 'suggestions_disabled') : sendJson(res, 200, d.schemaDiscovery.suggestions())),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/v1/tap',
    schema: { query: TapQuery, invalid: 'tap_params_invalid' },
    feature: { select: (d) => d.tap, disabled: 'tap_disabled' },
    handle: (req, res, _d, tap) => {
      const q = req.input.query;
      const durationMs = q.duration === undefined ? TAP_DEFAULT_DURATION_MS : parseDuration(q.duration);
      if (durationMs === undefined) return sendError(res, 'tap_params_invalid', { detail: 'duration is not a humantime value' });
      if (tap.maxDurationMs !== undefined && durationMs > tap.maxDurationMs) {
        return sendError(res, 'tap_params_invalid', { detail: 'duration above daemon.tap.max_duration' });
      }
      const redact = (q.redact ?? '').split(',').map((p) => p.trim()).filter((p) => p !== '');
      openLive(res, tap, { durationMs, limit: q.limit, stage: q.stage ?? 'decoded', redact }, 'tap_capacity_reached');
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/v1/detections/stream',
    schema: { query: TailQuery, invalid: 'tail_params_invalid' },
    feature: { select: (d) => d.tail, disabled: 'tail_disabled' },
    handle: (req, res, _d, tail) => {
      const q = req.input.query;
      const durationMs = q.duration === undefined ? undefined : parseDuration(q.duration);
      if (q.duration !== undefined && durationMs === undefined) {
        return sendError(res, 'tail_params_invalid', { detail: 'duration is not a humantime value' });
      }
      const rule = q.rule?.trim().toLowerCase();
      const request = { durationMs, limit: q.limit, level: q.level, rule: rule === '' ? undefined : rule };
      openLive(res, tail, request, 'tail_capacity_reached');
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/v1/audit',
    schema: { query: AuditQuery, response: AuditListResponse },
    feature: { select: (d) => d.audit, disabled: 'audit_disabled' },
    handle: (req, res, _d, audit) => sendJson(res, 200, audit.list(req.input.query)),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/v1/state',
    schema: { response: StateReport },
    feature: { select: (d) => d.stateReport, disabled: 'state_disabled' },
    handle: (_req, res, _d, report) => sendJson(res, 200, report()),
  }),
  otlpLogsRoute(INGEST_MAX_BODY_BYTES),
  ...UI_ROUTES,
];

/** Start a live session streaming chunked NDJSON; the session is closed when the client leaves. */
function openLive<R>(res: Res, live: LiveStream<R>, request: R, capacity: ApiErrorCode): void {
  let close: (() => void) | undefined;
  const stream = createNdjsonStream(res, { maxBufferedLines: live.bufferEvents, onClose: () => close?.() });
  const opened = live.open(request, stream);
  if (!opened.ok) return sendError(res, capacity);
  close = () => opened.close();
}

