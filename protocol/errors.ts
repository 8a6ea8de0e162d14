/**
 * The one catalogue of API errors: code → HTTP status, `error` message, optional `hint` and constant
 * extra body fields. Entries with `contract` correspond to a row of the Errors table of
 * `spec/interface.md` (the cell text of its Endpoint column); a test keeps both in step.
 */
export interface ApiErrorSpec {
  readonly status: number;
  readonly error: string;
  readonly hint?: string;
  /** Constant fields the contract puts beside `error` (e.g. `{status: 'resolve_already_pending'}`). */
  readonly extra?: Readonly<Record<string, string | number | boolean>>;
  /** Endpoint cell of the contract's Errors table row this entry answers. */
  readonly contract?: string;
}

export const API_ERRORS = {
  silence_invalid: {
    status: 400,
    error: 'invalid silence',
    hint: 'detail names the field at fault; matchers is a non-empty list (at most 64) of {selector, op, value}',
    contract: 'POST /api/v1/silences',
  },
  silence_regex_invalid: {
    status: 400,
    error: 'invalid regex in silence matcher',
    contract: 'POST /api/v1/silences',
  },
  disposition_body_invalid: {
    status: 400,
    error: 'disposition body is neither JSON nor NDJSON',
    contract: 'POST /api/v1/dispositions',
  },
  tap_params_invalid: {
    status: 400,
    error: 'invalid tap parameters',
    hint: 'duration is a humantime value up to daemon.tap.max_duration, limit an integer, stage decoded or raw',
    contract: 'GET /api/v1/tap',
  },
  tail_params_invalid: {
    status: 400,
    error: 'invalid detection tail parameters',
    hint: 'level is one of informational, low, medium, high, critical; duration a humantime value; limit an integer',
    contract: 'GET /api/v1/detections/stream',
  },
  bundle_format_unknown: {
    status: 400,
    error: 'unknown bundle format',
    hint: 'format is json, markdown or md',
  },
  incident_not_found: {
    status: 404,
    error: 'no such open incident',
    hint: 'it may have resolved; GET /api/v1/incidents lists the open ones',
  },
  incident_batching: {
    status: 409,
    error: 'incident is still batching',
    hint: 'its bundle is ready once group_wait has passed and the incident opened',
  },
  incident_grouping_disabled: {
    status: 503,
    error: 'incident grouping disabled',
    hint: 'load an alert pipeline (--alert-pipeline) with a group block',
  },
  silence_not_found: {
    status: 404,
    error: 'no such silence',
    contract: 'DELETE /api/v1/silences/{id}',
  },
  sources_not_configured: {
    status: 404,
    error: 'no dynamic sources configured',
    contract: 'POST /api/v1/sources/resolve/{source_id}',
  },
  tap_capacity_reached: {
    status: 409,
    error: 'tap session capacity reached',
    hint: 'wait for a running tap session to end or raise daemon.tap.max_sessions',
    contract: 'GET /api/v1/tap',
  },
  tail_capacity_reached: {
    status: 409,
    error: 'tail session capacity reached',
    hint: 'wait for a running tail session to end or raise daemon.tail.max_sessions',
    contract: 'GET /api/v1/detections/stream',
  },
  silences_limit_reached: {
    status: 429,
    error: 'max_silences reached',
    hint: 'delete expired or unused silences first',
    contract: 'POST /api/v1/silences',
  },
  resolve_already_pending: {
    status: 429,
    error: 'resolve already pending',
    extra: { status: 'resolve_already_pending' },
    contract: 'POST /api/v1/sources/resolve/{source_id}',
  },
  not_ready: {
    status: 503,
    error: 'rules not loaded',
    extra: { status: 'starting', rules_loaded: false },
    contract: 'GET /readyz',
  },
  /** After a failed reload: the previous rules serve, `reason` says why the new ones did not load. */
  reload_failed: {
    status: 503,
    error: 'reload failed',
    extra: { status: 'starting', rules_loaded: false },
    contract: 'GET /readyz',
  },
  /** The state directory was deleted or replaced under the running daemon: what it journals now is lost at exit. */
  state_lost: {
    status: 503,
    error: 'state directory lost',
    hint: 'restart the daemon; it recovers from what the state directory holds then',
    extra: { status: 'starting', rules_loaded: false },
    contract: 'GET /readyz',
  },
  dispositions_disabled: {
    status: 503,
    error: 'disposition feedback loop disabled',
    hint: 'set daemon.dispositions.enabled: true, start with --enable-dispositions or configure daemon.dispositions.source',
    contract: 'dispositions routes',
  },
  fields_disabled: {
    status: 503,
    error: 'field observation disabled',
    hint: 'start the daemon with --observe-fields',
    contract: '/api/v1/fields, /fields/unknown, /fields/missing, DELETE /fields/observer',
  },
  schemas_disabled: {
    status: 503,
    error: 'schema observation disabled',
    hint: 'start the daemon with --observe-schemas or --discover-schemas',
    contract: '/api/v1/schemas (GET, DELETE)',
  },
  suggestions_disabled: {
    status: 503,
    error: 'schema discovery sampling disabled',
    hint: 'start the daemon with --discover-schemas',
    contract: '/api/v1/schemas/suggestions',
  },
  tap_disabled: {
    status: 503,
    error: 'event tap disabled',
    hint: 'set daemon.tap.enabled: true or start with --enable-tap',
    contract: 'GET /api/v1/tap',
  },
  tail_disabled: {
    status: 503,
    error: 'detection tail disabled',
    hint: 'set daemon.tail.enabled: true or start with --enable-tail',
    contract: 'GET /api/v1/detections/stream',
  },
  // Beyond the contract's table (its "not shown" cases, decided in daemon-semantics §3.5, §15, §18).
  ingest_disabled: {
    status: 404,
    error: 'event ingestion not enabled (start with --input http)',
    hint: 'start the daemon with --input http',
  },
  line_too_large: { status: 413, error: 'line exceeds maximum size', extra: { max_bytes: 1_048_576 } },
  keyed_request_too_large: {
    status: 413,
    error: 'request with Idempotency-Key has more lines than the input buffer holds',
    hint: 'split the request, send it without Idempotency-Key, or raise --buffer-size',
  },
  event_channel_closed: { status: 503, error: 'event channel closed' },
  // The listener is bound before rules load and state replays; `phase` says which step is running.
  daemon_starting: {
    status: 503,
    error: 'daemon starting',
    hint: 'rules are loading or state is replaying; retry when GET /readyz answers 200',
    extra: { status: 'starting' },
  },
  otlp_disabled: {
    status: 503,
    error: 'OTLP ingest disabled',
    hint: 'OTLP ingest needs a build with feature daemon-otlp',
  },
  // Bearer-token auth (§18.5): 401 carries `WWW-Authenticate: Bearer`; 403 names the permission after the message.
  unauthorized: { status: 401, error: 'missing or invalid bearer token' },
  forbidden: { status: 403, error: 'token lacks required permission' },
  // Audit trail (§18.6).
  audit_body_too_large: { status: 413, error: 'request body exceeds audit max_body_bytes' },
  audit_disabled: {
    status: 503,
    error: 'audit trail disabled',
    hint: 'the audit trail needs --state-db and daemon.api.audit.enabled not set to false',
  },
  ui_disabled: {
    status: 404,
    error: 'web console disabled',
    hint: 'it is on by default on a loopback or unix:// --api-addr; --ui=true (daemon.ui) turns it on elsewhere; a daemon started from a tree that was not built (npm run build) has none',
  },
  ui_asset_not_found: {
    status: 404,
    error: 'no such web console asset',
    hint: 'asset names carry the build that serves them: reload /ui/',
  },
  // `GET /api/v1/state` (`sigmad state inspect --url`).
  state_disabled: { status: 503, error: 'no state database', hint: 'the state report needs a daemon started with --state-db' },
  // Cluster mode (issue 21).
  cluster_disabled: { status: 503, error: 'cluster mode disabled', hint: 'start the daemon with --cluster nats://host:port' },
  route_not_found: { status: 404, error: 'no such route' },
  method_not_allowed: { status: 405, error: 'method not allowed' },
  body_too_large: { status: 413, error: 'request body too large' },
  body_malformed: { status: 400, error: 'request body is not valid JSON' },
  request_invalid: { status: 400, error: 'invalid request' },
  // Requests the HTTP parser refuses before any route sees them (node:http adapter; uWS closes the connection).
  request_malformed: { status: 400, error: 'malformed HTTP request' },
  request_headers_too_large: { status: 431, error: 'request headers too large' },
  request_timeout: { status: 408, error: 'request headers not received in time' },
  internal_error: { status: 500, error: 'internal error' },
} as const satisfies Readonly<Record<string, ApiErrorSpec>>;

export type ApiErrorCode = keyof typeof API_ERRORS;

/** The JSON body of an error response: always `error`, optional `hint`, then detail fields. */
interface ApiErrorBody {
  readonly error: string;
  readonly hint?: string;
  readonly [detail: string]: unknown;
}

export interface ApiErrorResponse {
  readonly status: number;
  readonly body: ApiErrorBody;
}

/** Build the response of catalogue entry `code`; `detail` adds request-specific fields. */
export function apiError(code: ApiErrorCode, detail?: Readonly<Record<string, unknown>>): ApiErrorResponse {
  const spec: ApiErrorSpec = API_ERRORS[code];
  const body: ApiErrorBody = {
    ...spec.extra,
    ...detail,
    error: spec.error,
    ...(spec.hint !== undefined ? { hint: spec.hint } : {}),
  };
  return { status: spec.status, body };
}
