import Compile from 'typebox/compile';
import { describe, expect, it } from 'vitest';
import { FakeDaemonFacade } from './fake-facade.js';
import { inject, type InjectRequest } from '../../http/inject.js';
import { createHttpApp } from '../../http/http-app.js';
import { ROUTES } from '../../http/routes.js';

/** A request that succeeds for each route, against the populated fake below. */
const SUCCESS: Readonly<Record<string, InjectRequest>> = {
  'GET /healthz': { method: 'GET', url: '/healthz' },
  'GET /readyz': { method: 'GET', url: '/readyz' },
  'GET /api/v1/status': { method: 'GET', url: '/api/v1/status' },
  'GET /api/v1/rules': { method: 'GET', url: '/api/v1/rules' },
  'GET /api/v1/correlations': { method: 'GET', url: '/api/v1/correlations' },
  'GET /api/v1/correlations/state': { method: 'GET', url: '/api/v1/correlations/state?group=alice' },
  'GET /api/v1/incidents': { method: 'GET', url: '/api/v1/incidents' },
  'GET /api/v1/risk': { method: 'GET', url: '/api/v1/risk' },
  'GET /api/v1/silences': { method: 'GET', url: '/api/v1/silences' },
  'POST /api/v1/silences': { method: 'POST', url: '/api/v1/silences', body: '{"matchers":[{"selector":"rule","op":"!~","value":"^x"}]}' },
  'DELETE /api/v1/silences/{id}': { method: 'DELETE', url: '/api/v1/silences/s1' },
  'POST /api/v1/dispositions': { method: 'POST', url: '/api/v1/dispositions', body: '{"rule_id":"r","verdict":"true_positive"}' },
  'POST /api/v1/reload': { method: 'POST', url: '/api/v1/reload' },
  'POST /api/v1/events': { method: 'POST', url: '/api/v1/events', body: '{"a":1}\n' },
  'GET /api/v1/sources': { method: 'GET', url: '/api/v1/sources' },
  'POST /api/v1/sources/resolve': { method: 'POST', url: '/api/v1/sources/resolve' },
  'POST /api/v1/sources/resolve/{source_id}': { method: 'POST', url: '/api/v1/sources/resolve/a' },
  'DELETE /api/v1/sources/cache/{source_id}': { method: 'DELETE', url: '/api/v1/sources/cache/a' },
  'GET /api/v1/audit': { method: 'GET', url: '/api/v1/audit?limit=5&since=0' },
  'GET /api/v1/state': { method: 'GET', url: '/api/v1/state' },
  'GET /api/v1/cluster': { method: 'GET', url: '/api/v1/cluster' },
};

function populatedFacade(): FakeDaemonFacade {
  const facade = Object.assign(
    new FakeDaemonFacade({
      httpInput: true,
      dispositions: true,
      sources: [{ source_id: 'a', pipeline: 'p.yml', type: 'Http', refresh: 'Interval(300s)', required: false, state: 'failed', last_resolved: null, last_error: 'Fetch: HTTP 503: down' }],
    }),
    {
      incidents: () => [
        {
          incident_id: 'i1', state: 'open', trigger: 'snapshot', first_seen: 1, last_seen: 2, max_level: 'high',
          result_count: 2, rule_counts: { r: 2 }, group_by: { 'match.user': 'alice' }, refs: [{ rule: 'r', level: 'high' }],
        },
      ],
      riskEntities: () => [
        { entity_type: 'user', entity_value: 'alice', score: 40, tactic_count: 2, source_count: 1, result_count: 3, window_start: 1, window_end: 9 },
      ],
    },
  );
  facade.correlationList = [
    { index: 0, title: 'Brute', type: 'event_count', timespan_secs: 60, group_by: ['user'], rule_refs: ['r'], threshold: '>= 3', active_groups: 1 },
  ];
  facade.groupList = [
    {
      correlation_index: 0, correlation_title: 'Brute', type: 'event_count', group_key: [{ field: 'user', value: 'alice' }],
      group_key_display: 'user=alice', got: 1, threshold: '>= 3', met: false, entries: 1, timespan_secs: 60,
      seconds_to_eviction: 60, window: { EventCount: { timestamps: [1] } },
    },
  ];
  facade.silences.create({ matchers: [{ selector: 'rule', op: '=', value: 'x' }] });
  const record = { id: 1, ts: 1, method: 'POST', endpoint: '/api/v1/silences', token: 'ops', status: 201, prev_hash: '0'.repeat(64), hash: 'a'.repeat(64) };
  const stateReport = () => ({
    snapshot: { seq: 4, at: 1, previous_seq: null }, journal: { length: 2, first_seq: 5, last_seq: 6 }, outbox: { length: 1, last_oseq: 0, backlog: { stdout: 0 } },
    states: { correlation: 1 }, definitions: 1, input_ordinal: 7, input_positions: {}, idempotency_keys: 0, size_bytes: 4096,
  });
  const cluster = () => ({
    node: 'n1', partitions: 64, members: ['n1', 'n2'],
    owned: [{ partition: 3, hit_seq: 10, lag: 0, floor: 12, snapshot_seq: 8, groups: 1, silence_rev: 0 }],
    groups: [],
    incidents: [{ incident_id: 'i1', state: 'open', trigger: 'snapshot', first_seen: 1, last_seen: 2, result_count: 1, rule_counts: { r1: 1 } }],
    risk: [{ entity_type: 'host', entity_value: 'h1', score: 30, tactic_count: 0, source_count: 1, result_count: 1, window_start: 1, window_end: 2 }],
  });
  return Object.assign(facade, { audit: { maxBodyBytes: 65_536, record: () => Promise.resolve(), list: () => ({ count: 1, entries: [record] }) }, stateReport, cluster });
}

describe('response shapes', () => {
  const withResponse = ROUTES.filter((r) => r.schema.response !== undefined);

  it('every route with a response schema has a success case here', () => {
    expect(withResponse.map((r) => `${r.method} ${r.path}`).sort()).toEqual(Object.keys(SUCCESS).sort());
  });

  it.each(withResponse.map((r) => [`${r.method} ${r.path}`, r] as const))('%s answers its documented shape', async (key, route) => {
    const request = SUCCESS[key];
    expect(request).toBeDefined();
    const res = await inject(createHttpApp(ROUTES, populatedFacade()), request as InjectRequest);
    expect(res.status).toBeLessThan(300);
    const validator = Compile(route.schema.response ?? {});
    const body = res.json();
    expect(validator.Errors(body)).toEqual([]);
  });
});
