// The field observer, the schema observer and discovery against the real daemon: every route, the
// coverage join against the loaded rules, pagination, resets, 400s naming the parameter, the metrics.
import { cpSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES, ndjson, startDaemon, tempDir, waitFor } from './harness.js';
import type { RunningDaemon } from './harness.js';

const SCHEMA_CONFIG = `schemas:
  - name: acme_app
    specificity: 70
    match:
      - field_present: acme.tenant
      - equals: {field: acme.kind, value: AUDIT}
`;

/** Shapes no signature but the catch-all claims, three of each so discovery proposes them. */
const WIDGETS = [1, 2, 3].map((n) => ({ widget_id: n, widget_color: 'red', widget_size: n * 2 }));
const EVENTS = [
  { Channel: 'Microsoft-Windows-Sysmon/Operational', EventID: 1, CommandLine: 'whoami', Image: 'C:\\w.exe' },
  { ecs: { version: '8.11.0' }, host: { os: { type: 'linux' } }, process: { command_line: 'id' } },
  { acme: { tenant: 't1', kind: 'audit' }, action: 'login' },
  ...WIDGETS,
];

describe('field and schema observers', () => {
  let daemon: RunningDaemon;
  const metric = async (line: string): Promise<number> => {
    const text = (await daemon.request({ method: 'GET', url: '/metrics' })).text;
    const escaped = line.replace(/[{}"]/g, (c) => `\\${c}`);
    return Number(new RegExp(`^${escaped} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
  };
  const get = async (url: string) => daemon.json({ method: 'GET', url });
  let rules: string;

  beforeAll(async () => {
    const dir = tempDir('observers');
    const config = join(dir, 'schemas.yaml');
    writeFileSync(config, SCHEMA_CONFIG);
    rules = join(dir, 'rules');
    cpSync(join(FIXTURES, 'rules'), rules, { recursive: true });
    daemon = await startDaemon([
      '--rules', rules, '--input', 'http', '--api-addr', '127.0.0.1:0',
      '--observe-fields', '--observe-fields-max-keys', '12', '--discover-schemas', '--schema-config', config,
    ]);
    await daemon.request({ method: 'POST', url: '/api/v1/events', body: ndjson(EVENTS) + 'just a plain line\n' });
    await waitFor(async () => ((await metric('svc_fields_observed_total')) === EVENTS.length + 1 ? true : undefined), 10_000, 'all events observed');
  });
  afterAll(async () => {
    daemon.kill();
    expect(await daemon.exited).toBe(0);
  });

  it('reports leaf field keys against the rule field set, with origins and titles', async () => {
    const { status, body } = await get('/api/v1/fields');
    expect(status).toBe(200);
    expect(body['summary']).toMatchObject({
      events_observed: EVENTS.length + 1,
      unique_keys_observed: 12,
      rule_fields_loaded: 3,
      max_keys: 12,
      intersection_count: 2,
      unknown_count: 10,
      missing_count: 1,
    });
    // 13 distinct keys in the events, 12 tracked: the last one, widget_size, is dropped in each of its 3 events.
    expect((body['summary'] as Record<string, number>)['overflow_dropped']).toBe(3);
    const missing = body['missing'] as Record<string, unknown>;
    expect(missing['items']).toEqual([{ field: 'Computer', rule_count: 1, sources: ['correlation'], rule_titles: ['Many Failed Logons On One Host'], truncated: false }]);
    const unknown = (await get('/api/v1/fields/unknown?limit=2')).body;
    expect(unknown).toMatchObject({ total: 10, offset: 0, limit: 2, next_offset: 2 });
    expect(unknown['items']).toEqual([
      { field: 'widget_color', count: 3 },
      { field: 'widget_id', count: 3 },
    ]);
    expect((await get('/api/v1/fields/unknown?offset=9&limit=5')).body).toMatchObject({ offset: 9, next_offset: null });
    expect((await get('/api/v1/fields/unknown?offset=50')).body).toMatchObject({ items: [], total: 10, next_offset: null });
    expect((await get('/api/v1/fields/missing')).body).toMatchObject({ total: 1, next_offset: null });
    expect(await metric('svc_fields_observer_unique_keys')).toBe(12);
    expect(await metric('svc_fields_observer_overflow_dropped_total')).toBe(3);
  });

  it.each([
    ['/api/v1/fields?limit=x', 'limit'],
    ['/api/v1/fields/unknown?offset=-1', 'offset'],
    ['/api/v1/fields/missing?limit=ten', 'limit'],
    // A page of 0 items would never advance a paginating client.
    ['/api/v1/fields/unknown?limit=0', 'limit'],
  ])('answers 400 naming the parameter for %s', async (url, param) => {
    const res = await get(url);
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain(param);
  });

  it('classifies events by built-in and user signatures and counts the unknown', async () => {
    const { status, body } = await get('/api/v1/schemas');
    expect(status).toBe(200);
    expect(body['summary']).toMatchObject({ events_observed: EVENTS.length + 1, classified: EVENTS.length, unknown: 1, ambiguous: 0 });
    expect(body['by_schema']).toEqual([
      { schema: 'generic_json', count: 3 },
      { schema: 'acme_app', count: 1 },
      { schema: 'ecs_linux', count: 1 },
      { schema: 'sysmon', count: 1 },
    ]);
    expect(body['unknown_shapes']).toEqual([{ keys: [], count: 1 }]);
    expect(body['routing_pruning']).toEqual([]);
    expect(await metric('svc_events_by_schema_total{schema="sysmon"}')).toBe(1);
    expect(await metric('svc_events_unknown_schema_total')).toBe(1);
    expect(await metric('svc_unknown_schema_clusters')).toBe(1);
  });

  it('suggests a signature for the unclaimed shape, as YAML the schema config takes', async () => {
    const { status, body } = await get('/api/v1/schemas/suggestions');
    expect(status).toBe(200);
    expect(body['summary']).toEqual({ events_mined: 3, shapes: 1, clusters: 1, candidates: 1 });
    const [candidate] = body['candidates'] as Record<string, unknown>[];
    expect(candidate).toMatchObject({ source: 'keys-only', support: 3, coverage_of_unknown: 1, specificity: 60, name: 'discovered_widget_color' });
    expect(candidate?.['predicates']).toEqual(['field_present: widget_color']);
    expect(body['signatures_yaml']).toContain('discovered_widget_color');
  });

  it('joins against the reloaded rules after a reload', async () => {
    writeFileSync(join(rules, 'tenant.yml'), 'title: Acme Tenant\nlogsource: {product: acme}\ndetection:\n  sel: {acme.tenant: t9, Host: h}\n  condition: sel\n');
    expect((await daemon.json({ method: 'POST', url: '/api/v1/reload' })).status).toBe(200);
    const missing = async () => ((await get('/api/v1/fields/missing')).body['items'] as { field: string }[]).map((i) => i.field);
    await waitFor(async () => ((await missing()).length === 2 ? true : undefined), 15_000, 'the reloaded rule field set');
    expect(await missing()).toEqual(['Computer', 'Host']);
    const summary = (await get('/api/v1/fields')).body['summary'] as Record<string, number>;
    expect(summary).toMatchObject({ rule_fields_loaded: 5, intersection_count: 3, unknown_count: 9 });
  });

  it('resets each observer alone; lifetime metrics stay monotonic', async () => {
    expect((await daemon.json({ method: 'DELETE', url: '/api/v1/fields/observer' })).body).toEqual({ status: 'reset', previous_keys: 12, previous_events: EVENTS.length + 1 });
    expect(((await get('/api/v1/fields')).body['summary'] as Record<string, number>)['events_observed']).toBe(0);
    expect((await daemon.json({ method: 'DELETE', url: '/api/v1/schemas' })).body).toEqual({ status: 'reset', previous_classified: EVENTS.length, previous_unknown: 1 });
    expect((await get('/api/v1/schemas')).body['by_schema']).toEqual([]);
    await daemon.request({ method: 'POST', url: '/api/v1/events', body: ndjson([EVENTS[0]]) });
    await waitFor(async () => ((await metric('svc_fields_observed_total')) === EVENTS.length + 2 ? true : undefined), 10_000, 'one more event observed');
    expect(await metric('svc_events_by_schema_total{schema="sysmon"}')).toBe(2);
    expect((await get('/api/v1/schemas')).body['by_schema']).toEqual([{ schema: 'sysmon', count: 1 }]);
  });
});

describe('schema observation without discovery', () => {
  it('answers the sampler 503 on suggestions, and the field routes 503', async () => {
    const daemon = await startDaemon(['--rules', join(FIXTURES, 'rules'), '--input', 'http', '--api-addr', '127.0.0.1:0', '--observe-schemas']);
    try {
      expect((await daemon.json({ method: 'GET', url: '/api/v1/schemas' })).status).toBe(200);
      const suggestions = await daemon.json({ method: 'GET', url: '/api/v1/schemas/suggestions' });
      expect(suggestions.status).toBe(503);
      expect(suggestions.body['error']).toBe('schema discovery sampling disabled');
      const fields = await daemon.json({ method: 'GET', url: '/api/v1/fields' });
      expect(fields).toMatchObject({ status: 503, body: { error: 'field observation disabled' } });
    } finally {
      daemon.kill();
      expect(await daemon.exited).toBe(0);
    }
  });
});
