import { expect } from 'vitest';
import type { InjectRequest } from '../../http/inject.js';

/** A response as every adapter reports it, so one suite runs against inject, uWS and node:http. */
export interface SuiteResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly text: string;
}

export type Send = (request: InjectRequest) => Promise<SuiteResponse>;

export interface RouteCase {
  readonly name: string;
  readonly request: InjectRequest;
  readonly status: number;
  /** Fields the JSON body must contain. */
  readonly body?: Readonly<Record<string, unknown>>;
}

/** Cases for a FakeDaemonFacade with every feature OFF (the daemon's defaults). */
export const DISABLED_CASES: readonly RouteCase[] = [
  { name: 'healthz answers ok', request: { method: 'GET', url: '/healthz' }, status: 200, body: { status: 'ok' } },
  { name: 'readyz answers ready', request: { method: 'GET', url: '/readyz' }, status: 200, body: { status: 'ready', rules_loaded: true } },
  { name: 'status returns counters', request: { method: 'GET', url: '/api/v1/status' }, status: 200, body: { status: 'running', detection_rules: 3 } },
  { name: 'rules returns counts', request: { method: 'GET', url: '/api/v1/rules' }, status: 200, body: { detection_rules: 3, rules_path: '/rules' } },
  { name: 'correlations lists none', request: { method: 'GET', url: '/api/v1/correlations' }, status: 200, body: { correlations: [], count: 0 } },
  { name: 'correlation state lists none', request: { method: 'GET', url: '/api/v1/correlations/state?id=x&group=y' }, status: 200, body: { groups: [], count: 0 } },
  { name: 'incidents empty without grouping', request: { method: 'GET', url: '/api/v1/incidents' }, status: 200, body: { count: 0, incidents: [] } },
  { name: 'risk empty without accumulator', request: { method: 'GET', url: '/api/v1/risk' }, status: 200, body: { count: 0, entities: [] } },
  { name: 'silences list empty', request: { method: 'GET', url: '/api/v1/silences' }, status: 200, body: { count: 0, silences: [] } },
  { name: 'silence without matchers is 400', request: { method: 'POST', url: '/api/v1/silences', body: '{}' }, status: 400, body: { error: 'invalid silence' } },
  { name: 'silence with bad regex is 400', request: { method: 'POST', url: '/api/v1/silences', body: JSON.stringify({ matchers: [{ selector: 'rule', op: '=~', value: '(' }] }) }, status: 400, body: { error: 'invalid regex in silence matcher' } },
  { name: 'unknown silence delete is 404', request: { method: 'DELETE', url: '/api/v1/silences/nope' }, status: 404, body: { error: 'no such silence' } },
  { name: 'dispositions GET disabled', request: { method: 'GET', url: '/api/v1/dispositions' }, status: 503, body: { error: 'disposition feedback loop disabled' } },
  { name: 'dispositions POST disabled', request: { method: 'POST', url: '/api/v1/dispositions', body: '{}' }, status: 503 },
  { name: 'reload triggers', request: { method: 'POST', url: '/api/v1/reload', body: 'ignored' }, status: 200, body: { status: 'reload_triggered' } },
  { name: 'events without http input is 404 saying how to enable', request: { method: 'POST', url: '/api/v1/events', body: '{}\n' }, status: 404, body: { error: 'event ingestion not enabled (start with --input http)' } },
  { name: 'sources lists none', request: { method: 'GET', url: '/api/v1/sources' }, status: 200, body: { sources: [] } },
  { name: 'resolve without sources is 404', request: { method: 'POST', url: '/api/v1/sources/resolve' }, status: 404, body: { error: 'no dynamic sources configured' } },
  { name: 'resolve one without sources is 404', request: { method: 'POST', url: '/api/v1/sources/resolve/a' }, status: 404, body: { error: 'no dynamic sources configured' } },
  { name: 'cache invalidation is a 200 no-op without sources', request: { method: 'DELETE', url: '/api/v1/sources/cache/a' }, status: 200, body: { status: 'invalidated', source_id: 'a' } },
  { name: 'fields disabled', request: { method: 'GET', url: '/api/v1/fields' }, status: 503, body: { error: 'field observation disabled' } },
  { name: 'fields unknown disabled', request: { method: 'GET', url: '/api/v1/fields/unknown' }, status: 503, body: { error: 'field observation disabled' } },
  { name: 'fields missing disabled', request: { method: 'GET', url: '/api/v1/fields/missing' }, status: 503, body: { error: 'field observation disabled' } },
  { name: 'field observer reset disabled', request: { method: 'DELETE', url: '/api/v1/fields/observer' }, status: 503, body: { error: 'field observation disabled' } },
  { name: 'schemas disabled', request: { method: 'GET', url: '/api/v1/schemas' }, status: 503, body: { error: 'schema observation disabled' } },
  { name: 'schemas reset disabled', request: { method: 'DELETE', url: '/api/v1/schemas' }, status: 503 },
  { name: 'suggestions disabled with the observer off', request: { method: 'GET', url: '/api/v1/schemas/suggestions' }, status: 503, body: { error: 'schema observation disabled' } },
  { name: 'tap disabled even with bad params', request: { method: 'GET', url: '/api/v1/tap?stage=bogus' }, status: 503, body: { error: 'event tap disabled' } },
  { name: 'tail disabled', request: { method: 'GET', url: '/api/v1/detections/stream' }, status: 503, body: { error: 'detection tail disabled' } },
  { name: 'otlp not built', request: { method: 'POST', url: '/v1/logs', body: '{}' }, status: 503, body: { error: 'OTLP ingest disabled' } },
  { name: 'unknown route is 404 JSON', request: { method: 'GET', url: '/nope' }, status: 404, body: { error: 'no such route' } },
  { name: 'wrong method is 405 JSON', request: { method: 'PUT', url: '/api/v1/status' }, status: 405, body: { error: 'method not allowed' } },
  { name: 'malformed JSON body is 400', request: { method: 'POST', url: '/api/v1/silences', body: '{"matchers":' }, status: 400, body: { error: 'request body is not valid JSON' } },
  { name: 'malformed path encoding is 400', request: { method: 'DELETE', url: '/api/v1/silences/%E0%A4%A' }, status: 400 },
];

/** Check one case: status, JSON Content-Type, `error` on errors and the expected fields. */
export async function checkCase(send: Send, c: RouteCase): Promise<void> {
  const res = await send(c.request);
  expect(res.status, c.name).toBe(c.status);
  expect(res.headers['content-type'], c.name).toMatch(/^application\/json/);
  const body = JSON.parse(res.text) as Record<string, unknown>;
  if (c.status >= 400) expect(typeof body['error'], c.name).toBe('string');
  if (c.body !== undefined) expect(body, c.name).toMatchObject(c.body);
}
