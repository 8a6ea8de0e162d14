// Every contract route against the real daemon, over TCP and over a unix socket, including each
// error status a request can provoke from outside.
import { existsSync, statSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METRICS } from '../../protocol/metrics.js';
import { send } from '../http/client.js';
import { checkCase } from '../http/route-suite.js';
import type { RouteCase } from '../http/route-suite.js';
import { ensureBuilt, FIXTURES, ndjson, startDaemon, tempDir, waitFor } from './harness.js';
import type { RunningDaemon } from './harness.js';

const RULES = join(FIXTURES, 'rules');

const CASES: readonly RouteCase[] = [
  { name: 'healthz answers ok', request: { method: 'GET', url: '/healthz' }, status: 200, body: { status: 'ok' } },
  { name: 'readyz answers ready', request: { method: 'GET', url: '/readyz' }, status: 200, body: { status: 'ready', rules_loaded: true } },
  { name: 'status counts the loaded rules', request: { method: 'GET', url: '/api/v1/status' }, status: 200, body: { status: 'running', detection_rules: 2, correlation_rules: 1 } },
  { name: 'rules names the rules path', request: { method: 'GET', url: '/api/v1/rules' }, status: 200, body: { detection_rules: 2, correlation_rules: 1, rules_path: RULES } },
  { name: 'correlations lists the correlation', request: { method: 'GET', url: '/api/v1/correlations' }, status: 200, body: { count: 1 } },
  { name: 'correlation state filters by name', request: { method: 'GET', url: '/api/v1/correlations/state?id=many_failed_logons' }, status: 200, body: { count: 0 } },
  { name: 'incidents are empty without grouping', request: { method: 'GET', url: '/api/v1/incidents' }, status: 200, body: { count: 0, incidents: [] } },
  { name: 'risk is empty without an accumulator', request: { method: 'GET', url: '/api/v1/risk' }, status: 200, body: { count: 0, entities: [] } },
  { name: 'silence without matchers is 400', request: { method: 'POST', url: '/api/v1/silences', body: '{}' }, status: 400 },
  { name: 'silence with a bad regex is 400', request: { method: 'POST', url: '/api/v1/silences', body: JSON.stringify({ matchers: [{ selector: 'rule', op: '=~', value: '(' }] }) }, status: 400, body: { error: 'invalid regex in silence matcher' } },
  { name: 'deleting an unknown silence is 404', request: { method: 'DELETE', url: '/api/v1/silences/nope' }, status: 404, body: { error: 'no such silence' } },
  { name: 'dispositions GET is 503 while disabled', request: { method: 'GET', url: '/api/v1/dispositions' }, status: 503 },
  { name: 'dispositions POST is 503 while disabled', request: { method: 'POST', url: '/api/v1/dispositions', body: '{}' }, status: 503 },
  { name: 'events accepts NDJSON', request: { method: 'POST', url: '/api/v1/events', body: ndjson([{ CommandLine: 'whoami' }, { a: 1 }]) }, status: 200, body: { accepted: 2, parse_errors: 0 } },
  { name: 'an oversized event line is 413', request: { method: 'POST', url: '/api/v1/events', body: `{"a":1}\n"${'x'.repeat(1_048_577)}"\n` }, status: 413, body: { error: 'line exceeds maximum size', max_bytes: 1_048_576 } },
  { name: 'sources lists none', request: { method: 'GET', url: '/api/v1/sources' }, status: 200, body: { sources: [] } },
  { name: 'resolve without sources is 404', request: { method: 'POST', url: '/api/v1/sources/resolve' }, status: 404 },
  { name: 'resolve one without sources is 404', request: { method: 'POST', url: '/api/v1/sources/resolve/a' }, status: 404 },
  { name: 'cache invalidation is a 200 no-op without sources', request: { method: 'DELETE', url: '/api/v1/sources/cache/a' }, status: 200, body: { status: 'invalidated', source_id: 'a' } },
  { name: 'fields is 503 while disabled', request: { method: 'GET', url: '/api/v1/fields' }, status: 503 },
  { name: 'unknown fields is 503 while disabled', request: { method: 'GET', url: '/api/v1/fields/unknown' }, status: 503 },
  { name: 'missing fields is 503 while disabled', request: { method: 'GET', url: '/api/v1/fields/missing' }, status: 503 },
  { name: 'field observer reset is 503 while disabled', request: { method: 'DELETE', url: '/api/v1/fields/observer' }, status: 503 },
  { name: 'schemas is 503 while disabled', request: { method: 'GET', url: '/api/v1/schemas' }, status: 503 },
  { name: 'schema reset is 503 while disabled', request: { method: 'DELETE', url: '/api/v1/schemas' }, status: 503 },
  { name: 'suggestions are 503 while disabled', request: { method: 'GET', url: '/api/v1/schemas/suggestions' }, status: 503 },
  { name: 'tap is 503 while disabled', request: { method: 'GET', url: '/api/v1/tap' }, status: 503, body: { error: 'event tap disabled' } },
  { name: 'tail with a bad level is 400', request: { method: 'GET', url: '/api/v1/detections/stream?level=loud' }, status: 400, body: { error: 'invalid detection tail parameters' } },
  { name: 'tail with a bad duration is 400', request: { method: 'GET', url: '/api/v1/detections/stream?duration=soon' }, status: 400, body: { error: 'invalid detection tail parameters' } },
  { name: 'tail with a negative limit is 400', request: { method: 'GET', url: '/api/v1/detections/stream?limit=-1' }, status: 400, body: { error: 'invalid detection tail parameters' } },
  { name: 'tail with a non-numeric limit is 400', request: { method: 'GET', url: '/api/v1/detections/stream?limit=many' }, status: 400, body: { error: 'invalid detection tail parameters' } },
  { name: 'garbage bytes are counted as parse errors, not a crash', request: { method: 'POST', url: '/api/v1/events', body: Buffer.from([0xff, 0xfe, 0x00, 0x7b, 0x0a, 0xc3, 0x28, 0x0a]) }, status: 200, body: { accepted: 0, parse_errors: 2 } },
  { name: 'an empty OTLP/JSON export is 200', request: { method: 'POST', url: '/v1/logs', headers: { 'content-type': 'application/json' }, body: '{}' }, status: 200, body: { partialSuccess: { rejectedLogRecords: 0, errorMessage: '' } } },
  { name: 'an unknown route is 404 JSON', request: { method: 'GET', url: '/nope' }, status: 404, body: { error: 'no such route' } },
  { name: 'a wrong method is 405 JSON', request: { method: 'PUT', url: '/api/v1/status' }, status: 405 },
  { name: 'a malformed JSON body is 400', request: { method: 'POST', url: '/api/v1/silences', body: '{"matchers":' }, status: 400, body: { error: 'request body is not valid JSON' } },
  { name: 'a malformed path encoding is 400', request: { method: 'DELETE', url: '/api/v1/silences/%E0%A4%A' }, status: 400 },
];

// Build dist/ (when stale) outside the tests' own time budgets.
beforeAll(ensureBuilt, 180_000);

// The same suite on both HTTP adapters (ARCHITECTURE.md), each over TCP and over a unix socket.
describe.each([
  ['tcp', 'uws', (): string => '127.0.0.1:0'],
  ['unix socket', 'uws', (): string => `unix://${join(tempDir('sock'), 'api.sock')}`],
  ['tcp', 'node', (): string => '127.0.0.1:0'],
  ['unix socket', 'node', (): string => `unix://${join(tempDir('sock'), 'api.sock')}`],
] as const)('the API over %s (%s adapter)', (kind, adapter, addr) => {
  let daemon: RunningDaemon;
  beforeAll(async () => {
    const out = join(tempDir('routes'), 'out.ndjson');
    daemon = await startDaemon(['--rules', RULES, '--input', 'http', '--enable-tail', '--api-addr', addr(), '--output', `file://${out}`, '--http-adapter', adapter]);
  });
  afterAll(async () => {
    daemon.kill();
    expect(await daemon.exited).toBe(0);
    if (daemon.address.kind === 'unix') expect(existsSync(daemon.address.path), 'socket unlinked on exit').toBe(false);
  });

  it('runs on the adapter asked for', () => {
    expect(daemon.logs.some((l) => l.includes(`"adapter":"${adapter}"`) && l.includes('"listening"'))).toBe(true);
  });

  it(kind === 'unix socket' ? 'creates the socket with mode 0600' : 'listens on the ephemeral TCP port it logged', () => {
    const a = daemon.address;
    if (a.kind === 'unix') expect(statSync(a.path).mode & 0o777).toBe(0o600);
    else expect([a.kind, a.port > 0]).toEqual(['tcp', true]);
  });

  it.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    await checkCase(daemon.request, c);
  });

  it('serves Prometheus text on /metrics', async () => {
    const res = await daemon.request({ method: 'GET', url: '/metrics' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.text).toMatch(/^svc_events_processed_total \d+$/m);
    // Every family rendered from the start is served, with its catalogue type.
    for (const [name, decl] of Object.entries(METRICS)) {
      if (decl.group !== 'always' || decl.labels.length > 0) continue;
      expect(res.text, name).toContain(`# TYPE ${name} ${decl.type}\n`);
    }
  });

  it('creates, lists and deletes a silence', async () => {
    const created = await daemon.json({ method: 'POST', url: '/api/v1/silences', body: JSON.stringify({ matchers: [{ selector: 'rule', op: '=', value: 'x' }] }) });
    expect(created.status).toBe(201);
    const id = String(created.body['id']);
    const listed = await daemon.json({ method: 'GET', url: '/api/v1/silences' });
    expect(JSON.stringify(listed.body['silences'])).toContain(id);
    expect((await daemon.json({ method: 'DELETE', url: `/api/v1/silences/${id}` })).body).toMatchObject({ status: 'deleted', id });
  });

  it('coalesces a burst of reload triggers into the pending reload', async () => {
    expect((await daemon.json({ method: 'POST', url: '/api/v1/reload', body: 'ignored' })).body).toEqual({ status: 'reload_triggered' });
    const second = await daemon.json({ method: 'POST', url: '/api/v1/reload' });
    expect(second.status).toBe(200);
    expect(second.body).toEqual({ status: 'reload_triggered', coalesced: true });
  });

  it('streams committed detections to a tail session and ends with a summary', async () => {
    const tail = send(daemon.address, { method: 'GET', url: '/api/v1/detections/stream?limit=1&level=high' });
    await waitFor(async () => (/^svc_tail_active_sessions 1$/m.test((await daemon.request({ method: 'GET', url: '/metrics' })).text) ? true : undefined), 10_000, 'the tail session');
    await daemon.request({ method: 'POST', url: '/api/v1/events', body: ndjson([{ CommandLine: 'dir' }, { CommandLine: 'whoami' }]) });
    const res = await tail;
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/x-ndjson/);
    const out = res.text.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(out[0]).toMatchObject({ rule_title: 'Whoami Execution', level: 'high' });
    expect(out.at(-1)).toMatchObject({ svc_tail_summary: { streamed: 1 } });
  });

  it('refuses a tail session past the capacity with 409', async () => {
    const aborts: (() => void)[] = [];
    // Two bounded sessions fill the capacity; each speaks once a detection is committed.
    for (let i = 0; i < 2; i++) {
      void send(daemon.address, { method: 'GET', url: '/api/v1/detections/stream?duration=20s' }, (_c, abort) => aborts.push(abort));
    }
    await waitFor(async () => (/^svc_tail_active_sessions 2$/m.test((await daemon.request({ method: 'GET', url: '/metrics' })).text) ? true : undefined), 10_000, 'two tail sessions');
    const third = await daemon.json({ method: 'GET', url: '/api/v1/detections/stream?duration=1s' });
    expect(third.status).toBe(409);
    expect(third.body).toMatchObject({ error: 'tail session capacity reached' });
    await daemon.request({ method: 'POST', url: '/api/v1/events', body: ndjson([{ CommandLine: 'whoami' }]) });
    await waitFor(() => (aborts.length >= 2 ? true : undefined), 10_000, 'both sessions to stream');
    for (const a of aborts) a();
    await waitFor(async () => (/^svc_tail_active_sessions 0$/m.test((await daemon.request({ method: 'GET', url: '/metrics' })).text) ? true : undefined), 10_000, 'sessions to end');
  });

  it('answers 413 for an ingest body over the cap', async () => {
    // Announce a body over the 16 MiB cap and send only its start: the daemon answers before reading it.
    const status = await new Promise<number>((resolve, reject) => {
      const target = daemon.address.kind === 'unix' ? { socketPath: daemon.address.path } : { host: daemon.address.host, port: daemon.address.port };
      const req = httpRequest({ ...target, method: 'POST', path: '/api/v1/events', headers: { 'content-length': String(17 * 1_048_576) }, agent: false }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.write('{"a":1}\n');
    });
    expect(status).toBe(413);
  });

  it('answers 429 when the silence limit is reached', async () => {
    const body = JSON.stringify({ matchers: [{ selector: 'rule', op: '=', value: 'y' }] });
    let status = 0;
    for (let i = 0; i <= 1000 && status !== 429; i++) status = (await daemon.request({ method: 'POST', url: '/api/v1/silences', body })).status;
    expect(status).toBe(429);
  });
});
