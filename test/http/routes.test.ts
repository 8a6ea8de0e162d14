import { describe, expect, it } from 'vitest';
import { IngestClosedError } from '../../http/facade.js';
import { FakeDaemonFacade, type FakeFeatures } from './fake-facade.js';
import { inject, type InjectRequest } from '../../http/inject.js';
import { MAX_LINE_BYTES } from '../../protocol/decode/index.js';
import { createHttpApp } from '../../http/http-app.js';
import { ROUTES } from '../../http/routes.js';
import { checkCase, DISABLED_CASES } from './route-suite.js';

function setup(features: FakeFeatures = {}) {
  const facade = new FakeDaemonFacade(features);
  const app = createHttpApp(ROUTES, facade, { maxBodyBytes: 4096 });
  const send = (r: InjectRequest) => inject(app, r);
  return { facade, app, send };
}

const ALL: FakeFeatures = {
  httpInput: true,
  dispositions: true,
  observeFields: true,
  observeSchemas: true,
  discoverSchemas: true,
  tap: true,
  tail: true,
  sources: [{ source_id: 'a', pipeline: 'p', type: 'File', refresh: 'Once', required: true, state: 'ready', last_resolved: '2026-11-26T22:00:00.000Z', last_error: null }],
};

describe('route table with every feature off', () => {
  const { send } = setup();
  for (const c of DISABLED_CASES) it(c.name, () => checkCase(send, c));
});

describe('route table with features on', () => {
  it('readyz answers 503 starting while rules are not loaded', async () => {
    const { facade, send } = setup();
    facade.ready = false;
    const res = await send({ method: 'GET', url: '/readyz' });
    expect(res.status).toBe(503);
    expect(res.json()).toMatchObject({ status: 'starting', rules_loaded: false });
  });

  it('metrics answers the text exposition with its content type', async () => {
    const { send } = setup();
    const res = await send({ method: 'GET', url: '/metrics' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(res.text).toContain('svc_events_processed_total');
  });

  it('correlation state passes id and group filters and counts groups', async () => {
    const { facade, send } = setup();
    facade.correlationList = [
      { index: 0, id: 'c1', title: 'Brute', type: 'event_count', timespan_secs: 60, group_by: ['user'], rule_refs: ['r'], threshold: '>= 3', active_groups: 2 },
      { index: 1, id: 'c2', title: 'Other', type: 'value_count', timespan_secs: 60, group_by: [], rule_refs: ['r'], threshold: '> 1', active_groups: 0 },
    ];
    const group = (display: string) => ({
      correlation_index: 0, correlation_title: 'Brute', type: 'event_count' as const, group_key: [{ field: 'user', value: display }],
      group_key_display: `user=${display}`, threshold: '>= 3', met: false, entries: 1, timespan_secs: 60, window: { EventCount: { timestamps: [] } },
    });
    facade.groupList = [group('alice'), group('bob')];
    const res = await send({ method: 'GET', url: '/api/v1/correlations/state?id=c1&group=ali' });
    expect(res.json()).toMatchObject({ count: 1, correlations: [{ id: 'c1' }], groups: [{ group_key_display: 'user=alice' }] });
    const all = await send({ method: 'GET', url: '/api/v1/correlations' });
    expect(all.json()).toMatchObject({ count: 2 });
  });

  it('reload joins a pending one and says so', async () => {
    const { facade, send } = setup();
    facade.reloadPending = true;
    const res = await send({ method: 'POST', url: '/api/v1/reload' });
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ status: 'reload_triggered', coalesced: true });
  });

  it('creates, lists and deletes a silence', async () => {
    const { send } = setup();
    const created = await send({
      method: 'POST',
      url: '/api/v1/silences',
      body: JSON.stringify({ matchers: [{ selector: 'rule', op: '=', value: 'x' }], comment: 'c' }),
    });
    expect(created.status).toBe(201);
    const { id } = created.json() as { id: string };
    expect(created.json()).toMatchObject({ status: 'created' });
    expect((await send({ method: 'GET', url: '/api/v1/silences' })).json()).toMatchObject({ count: 1 });
    expect((await send({ method: 'DELETE', url: `/api/v1/silences/${id}` })).status).toBe(200);
    expect((await send({ method: 'DELETE', url: `/api/v1/silences/${id}` })).status).toBe(404);
  });

  it('answers 429 when max_silences is reached', async () => {
    const { facade, send } = setup();
    facade.maxSilences = 0;
    const res = await send({ method: 'POST', url: '/api/v1/silences', body: JSON.stringify({ matchers: [{ selector: 'rule', op: '=', value: 'x' }] }) });
    expect(res.status).toBe(429);
  });

  it('ingests NDJSON lines, skipping blanks and stripping CR, passing the idempotency key', async () => {
    const { facade, send } = setup({ httpInput: true });
    const res = await send({
      method: 'POST',
      url: '/api/v1/events',
      headers: { 'Idempotency-Key': 'k1', 'content-type': 'application/x-ndjson' },
      body: '{"a":1}\r\n\n  \nnot json\n{"b":2}',
    });
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ accepted: 3, parse_errors: 1 });
    expect(facade.ingested[0]).toEqual({ lines: ['{"a":1}', 'not json', '{"b":2}'], rejected: [], key: 'k1' });
  });

  it('answers 503 with the count so far when the event channel is closed', async () => {
    const facade = Object.assign(new FakeDaemonFacade(), {
      ingest: { ingest: () => Promise.reject(new IngestClosedError(2)) },
    });
    const res = await inject(createHttpApp(ROUTES, facade), { method: 'POST', url: '/api/v1/events', body: '{}\n{}\n{}\n' });
    expect(res.status).toBe(503);
    expect(res.json()).toEqual({ error: 'event channel closed', accepted: 2 });
  });

  it('names the allowed methods on 405', async () => {
    const { send } = setup();
    const res = await send({ method: 'POST', url: '/api/v1/silences/x' });
    expect(res.status).toBe(405);
    expect(res.headers['allow']).toBe('DELETE');
    expect(res.json()).toMatchObject({ allowed: ['DELETE'] });
  });

  it('rejects a line over 1 MiB with 413 and counts it as a parse error', async () => {
    const { facade, send } = setup({ httpInput: true });
    const big = `{"x":"${'a'.repeat(MAX_LINE_BYTES)}"}`;
    const res = await send({ method: 'POST', url: '/api/v1/events', body: `{"a":1}\n${big}\n{"b":2}\n` });
    expect(res.status).toBe(413);
    expect(res.json()).toMatchObject({ error: 'line exceeds maximum size', max_bytes: MAX_LINE_BYTES, accepted: 1, parse_errors: 1 });
    expect(facade.ingested[0]?.rejected).toMatchObject([{ reason: 'too_long', bytes: big.length }]);
  });

  it('rejects a body over the cap with 413 JSON without calling the handler', async () => {
    const { facade, send } = setup({ httpInput: true });
    const res = await send({ method: 'POST', url: '/api/v1/silences', body: 'x'.repeat(5000) });
    expect(res.status).toBe(413);
    expect(res.json()).toMatchObject({ error: 'request body too large' });
    expect(facade.silenceMap.size).toBe(0);
  });

  it('serves dispositions when enabled: object, array and NDJSON bodies; 400 on garbage', async () => {
    const { send } = setup(ALL);
    expect((await send({ method: 'GET', url: '/api/v1/dispositions' })).json()).toMatchObject({ numerator: 'fp_only', rules: [] });
    const one = await send({ method: 'POST', url: '/api/v1/dispositions', body: '{"rule_id":"r","verdict":"false_positive"}' });
    expect(one.json()).toMatchObject({ accepted: 1 });
    const arr = await send({ method: 'POST', url: '/api/v1/dispositions', body: '[{"a":1},{"b":2}]' });
    expect(arr.json()).toMatchObject({ accepted: 2 });
    const nd = await send({ method: 'POST', url: '/api/v1/dispositions', body: '{"a":1}\n{"b":2}\n{"c":3}\n' });
    expect(nd.json()).toMatchObject({ accepted: 3 });
    const bad = await send({ method: 'POST', url: '/api/v1/dispositions', body: '{"a":1}\nnope' });
    expect(bad.status).toBe(400);
  });

  it('serves dynamic sources: list, resolve all, resolve one, 429 while pending, invalidate any id', async () => {
    const { facade, send } = setup(ALL);
    expect((await send({ method: 'GET', url: '/api/v1/sources' })).json()).toMatchObject({ sources: [{ source_id: 'a', type: 'File' }] });
    expect((await send({ method: 'POST', url: '/api/v1/sources/resolve' })).json()).toEqual({ status: 'resolve_triggered' });
    const byBody = await send({ method: 'POST', url: '/api/v1/sources/resolve', body: '{"source_id":"a"}' });
    expect(byBody.json()).toEqual({ status: 'resolve_triggered', source_id: 'a' });
    const again = await send({ method: 'POST', url: '/api/v1/sources/resolve/a' });
    expect(again.status).toBe(429);
    expect(again.json()).toMatchObject({ status: 'resolve_already_pending' });
    const fresh = await send({ method: 'POST', url: '/api/v1/sources/resolve/b%2Fc' });
    expect(fresh.json()).toEqual({ status: 'resolve_triggered', source_id: 'b/c' });
    const inv = await send({ method: 'DELETE', url: '/api/v1/sources/cache/unknown' });
    expect(inv.json()).toEqual({ status: 'invalidated', source_id: 'unknown' });
    expect(facade.invalidated).toEqual(['unknown']);
  });

  it('serves observer reports when enabled and validates paging', async () => {
    const { send } = setup(ALL);
    expect((await send({ method: 'GET', url: '/api/v1/fields/unknown?limit=5&offset=10' })).json()).toMatchObject({ limit: 5, offset: 10, next_offset: null });
    expect((await send({ method: 'GET', url: '/api/v1/fields?limit=x' })).status).toBe(400);
    expect((await send({ method: 'GET', url: '/api/v1/fields/missing' })).status).toBe(200);
    expect((await send({ method: 'DELETE', url: '/api/v1/fields/observer' })).json()).toMatchObject({ status: 'reset' });
    expect((await send({ method: 'GET', url: '/api/v1/schemas' })).json()).toHaveProperty('by_schema');
    expect((await send({ method: 'DELETE', url: '/api/v1/schemas' })).status).toBe(200);
    expect((await send({ method: 'GET', url: '/api/v1/schemas/suggestions' })).json()).toHaveProperty('signatures_yaml');
  });

  it('lists incidents and risk entities when the facade has them', async () => {
    const facade = Object.assign(new FakeDaemonFacade(), {
      incidents: () => [{ incident_id: 'i', state: 'open', trigger: 'snapshot', first_seen: 1, last_seen: 2, max_level: 'high', result_count: 1, rule_counts: {}, group_by: {} }],
      riskEntities: () => [],
    });
    const app = createHttpApp(ROUTES, facade);
    expect((await inject(app, { method: 'GET', url: '/api/v1/incidents' })).json()).toMatchObject({ count: 1 });
    expect((await inject(app, { method: 'GET', url: '/api/v1/risk' })).json()).toEqual({ count: 0, entities: [] });
  });

  it('answers 500 JSON when a handler throws', async () => {
    const facade = new FakeDaemonFacade();
    facade.status = () => {
      throw new Error('boom');
    };
    const errors: unknown[] = [];
    const app = createHttpApp(ROUTES, facade, { onError: (e) => errors.push(e) });
    const res = await inject(app, { method: 'GET', url: '/api/v1/status' });
    expect(res.status).toBe(500);
    expect(res.json()).toEqual({ error: 'internal error' });
    expect(errors).toHaveLength(1);
  });
});
