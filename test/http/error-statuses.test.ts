import { describe, expect, it } from 'vitest';
import { IngestClosedError, IngestTooLargeError } from '../../http/facade.js';
import { FakeDaemonFacade, type FakeFeatures } from './fake-facade.js';
import { inject, type InjectRequest } from '../../http/inject.js';
import { MAX_LINE_BYTES } from '../../protocol/decode/index.js';
import { createHttpApp } from '../../http/http-app.js';
import type { HttpApp } from '../../http/handler.js';
import { createStartupApp } from '../../http/startup-app.js';
import { ROUTES } from '../../http/routes.js';
import { guardApp } from '../../http/auth-guard.js';
import { API_ERRORS, type ApiErrorCode } from '../../protocol/errors.js';

interface ErrorCase {
  readonly features?: FakeFeatures;
  readonly setup?: (f: FakeDaemonFacade) => FakeDaemonFacade;
  readonly request: InjectRequest;
  /** Live sessions to open first (to reach a session cap). */
  readonly occupy?: string;
  /** The app answering instead of the route table over the facade (the start-up listener). */
  readonly app?: () => HttpApp;
}

/** The route table behind the auth guard: one token `r` holding the reader role. */
const guarded = (): HttpApp =>
  guardApp(createHttpApp(ROUTES, new FakeDaemonFacade()), ROUTES, { anonymous: [], tokens: [{ name: 'r', secret: 'r', permissions: [{ resource: '*', action: 'read' }] }] }, () => undefined);

const ON: FakeFeatures = { tap: true, tail: true, dispositions: true, httpInput: true };
const silence = (matchers: unknown) => ({ method: 'POST', url: '/api/v1/silences', body: JSON.stringify({ matchers }) });

/** Errors of the node:http adapter's parser, before the route table: test/http/raw-requests.test.ts. */
type ParserErrorCode = 'request_malformed' | 'request_headers_too_large' | 'request_timeout';

/** One request per catalogue entry that makes the route table answer exactly that error. */
const CASES: Readonly<Record<Exclude<ApiErrorCode, ParserErrorCode>, ErrorCase>> = {
  silence_invalid: { request: silence([]) },
  silence_regex_invalid: { request: silence([{ selector: 'rule', op: '=~', value: '[' }]) },
  disposition_body_invalid: { features: ON, request: { method: 'POST', url: '/api/v1/dispositions', body: '{' } },
  tap_params_invalid: { features: ON, request: { method: 'GET', url: '/api/v1/tap?duration=1h' } },
  tail_params_invalid: { features: ON, request: { method: 'GET', url: '/api/v1/detections/stream?level=loud' } },
  bundle_format_unknown: { request: { method: 'GET', url: '/api/v1/incidents/x/bundle?format=pdf' } },
  incident_grouping_disabled: { request: { method: 'GET', url: '/api/v1/incidents/x' } },
  incident_not_found: {
    setup: (f) => Object.assign(f, { incidentApi: { grouping: () => true, get: () => undefined, bundle: () => undefined } }),
    request: { method: 'GET', url: '/api/v1/incidents/x' },
  },
  incident_batching: {
    setup: (f) => Object.assign(f, { incidentApi: { grouping: () => true, get: () => ({ incident_id: 'x', bundle_ready: false }), bundle: () => undefined } }),
    request: { method: 'GET', url: '/api/v1/incidents/x/bundle' },
  },
  silence_not_found: { request: { method: 'DELETE', url: '/api/v1/silences/none' } },
  sources_not_configured: { request: { method: 'POST', url: '/api/v1/sources/resolve/x' } },
  tap_capacity_reached: { features: ON, occupy: '/api/v1/tap', request: { method: 'GET', url: '/api/v1/tap' } },
  tail_capacity_reached: { features: ON, occupy: '/api/v1/detections/stream', request: { method: 'GET', url: '/api/v1/detections/stream' } },
  silences_limit_reached: { setup: (f) => Object.assign(f, { maxSilences: 0 }), request: silence([{ selector: 'rule', op: '=', value: 'x' }]) },
  resolve_already_pending: {
    features: { sources: [] },
    setup: (f) => (f.resolving.add('x'), f),
    request: { method: 'POST', url: '/api/v1/sources/resolve/x' },
  },
  not_ready: { setup: (f) => Object.assign(f, { ready: false }), request: { method: 'GET', url: '/readyz' } },
  reload_failed: { setup: (f) => Object.assign(f, { ready: false, reloadError: 'rule r.yml: bad condition' }), request: { method: 'GET', url: '/readyz' } },
  state_lost: { setup: (f) => Object.assign(f, { stateError: '/state/data.mdb was deleted under the running daemon' }), request: { method: 'GET', url: '/readyz' } },
  dispositions_disabled: { request: { method: 'GET', url: '/api/v1/dispositions' } },
  fields_disabled: { request: { method: 'GET', url: '/api/v1/fields/missing' } },
  schemas_disabled: { request: { method: 'DELETE', url: '/api/v1/schemas' } },
  suggestions_disabled: { features: { observeSchemas: true }, request: { method: 'GET', url: '/api/v1/schemas/suggestions' } },
  tap_disabled: { request: { method: 'GET', url: '/api/v1/tap' } },
  tail_disabled: { request: { method: 'GET', url: '/api/v1/detections/stream' } },
  cluster_disabled: { request: { method: 'GET', url: '/api/v1/cluster' } },
  ingest_disabled: { request: { method: 'POST', url: '/api/v1/events', body: '{}' } },
  line_too_large: { features: ON, request: { method: 'POST', url: '/api/v1/events', body: 'x'.repeat(MAX_LINE_BYTES + 1) } },
  keyed_request_too_large: {
    setup: (f) => Object.assign(f, { ingest: { ingest: () => Promise.reject(new IngestTooLargeError(2)) } }),
    request: { method: 'POST', url: '/api/v1/events', headers: { 'idempotency-key': 'k' }, body: '{}\n{}\n{}' },
  },
  event_channel_closed: {
    setup: (f) => Object.assign(f, { ingest: { ingest: () => Promise.reject(new IngestClosedError(0)) } }),
    request: { method: 'POST', url: '/api/v1/events', body: '{}' },
  },
  daemon_starting: {
    app: () => createStartupApp(ROUTES, { phase: () => 'replaying state', metrics: () => Promise.resolve({ contentType: 'text/plain', text: '' }) }),
    request: { method: 'GET', url: '/api/v1/status' },
  },
  otlp_disabled: { request: { method: 'POST', url: '/v1/logs' } },
  unauthorized: { app: () => guarded(), request: { method: 'GET', url: '/api/v1/status' } },
  forbidden: { app: () => guarded(), request: { method: 'POST', url: '/api/v1/reload', headers: { authorization: 'Bearer r' } } },
  audit_disabled: { request: { method: 'GET', url: '/api/v1/audit' } },
  state_disabled: { request: { method: 'GET', url: '/api/v1/state' } },
  audit_body_too_large: {
    setup: (f) => Object.assign(f, { audit: { maxBodyBytes: 4, record: () => Promise.resolve(), list: () => ({ count: 0, entries: [] }) } }),
    request: silence([{ selector: 'rule', op: '=', value: 'x' }]),
  },
  ui_disabled: { request: { method: 'GET', url: '/ui/' } },
  ui_asset_not_found: {
    setup: (f) => Object.assign(f, { ui: { index: { contentType: 'text/html', body: new Uint8Array() }, assets: new Map() } }),
    request: { method: 'GET', url: '/ui/assets/0123/main.js' },
  },
  route_not_found: { request: { method: 'GET', url: '/api/v2/status' } },
  method_not_allowed: { request: { method: 'PATCH', url: '/healthz' } },
  body_too_large: { request: { method: 'POST', url: '/api/v1/silences', body: 'x'.repeat(2_000_000) } },
  body_malformed: { request: { method: 'POST', url: '/api/v1/sources/resolve', body: 'nope' }, features: { sources: [] } },
  request_invalid: { features: { observeFields: true }, request: { method: 'GET', url: '/api/v1/fields?offset=-1' } },
  internal_error: {
    setup: (f) =>
      Object.assign(f, {
        rules: () => {
          throw new Error('boom');
        },
      }),
    request: { method: 'GET', url: '/api/v1/rules' },
  },
};

describe('every catalogued error is answered by the route table', () => {
  it.each(Object.entries(CASES) as [ApiErrorCode, ErrorCase][])('%s', async (code, c) => {
    const base = new FakeDaemonFacade(c.features);
    const facade = c.setup?.(base) ?? base;
    const app = c.app?.() ?? createHttpApp(ROUTES, facade, { onError: () => undefined });
    const leave = new AbortController();
    if (c.occupy !== undefined) {
      for (let i = 0; i < 2; i++) void inject(app, { method: 'GET', url: c.occupy }, { signal: leave.signal });
    }
    const res = await inject(app, c.request);
    leave.abort();
    const spec = API_ERRORS[code];
    expect(res.status).toBe(spec.status);
    expect(res.headers['content-type']).toBe('application/json');
    // 403 appends the missing permission to its catalogue message.
    const error = code === 'forbidden' ? `${spec.error} 'reload:execute'` : spec.error;
    expect(res.json()).toMatchObject({ error, ...('hint' in spec ? { hint: spec.hint } : {}) });
  });
});
