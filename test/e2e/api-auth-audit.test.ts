// Bearer tokens and the audit trail on the real daemon, on both adapters (issue 18, daemon-semantics
// §18.5-18.6): an `ingest` token for shippers, a `reader` token for dashboards, an `operator` token
// for silences; audited requests listed by GET /api/v1/audit, copied to the audit sink, and the
// chain checked by `sigmad audit verify`, which names a record edited in the LMDB directory.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { open } from 'lmdb';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { uwsNativeAvailable } from '../../http/listen.js';
import { ensureBuilt, FIXTURES, MAIN, startDaemon, tempDir, waitFor, type RunningDaemon } from './harness.js';

const TOKENS = { T_SHIP: 'ship-secret', T_DASH: 'dash-secret', T_OPS: 'ops-secret' };
const AUTH_TOKENS = '[{name: shipper, token_env: T_SHIP, role: ingest}, {name: dashboard, token_env: T_DASH, role: reader}, {name: ops, token_env: T_OPS, role: operator}]';
const bearer = (secret: string) => ({ authorization: `Bearer ${secret}` });

const adapters = uwsNativeAvailable() ? (['uws', 'node'] as const) : (['node'] as const);
let running: RunningDaemon | undefined;

beforeAll(ensureBuilt, 180_000);
afterEach(async () => {
  running?.kill();
  await running?.exited;
  running = undefined;
});

async function verify(stateDb: string): Promise<{ code: number; result: Record<string, unknown> }> {
  const run = await promisify(execFile)(process.execPath, [MAIN, 'audit', 'verify', '--state-db', stateDb]).then(
    (r) => ({ code: 0, stdout: r.stdout }),
    (e: { code: number; stdout: string }) => ({ code: e.code, stdout: e.stdout }),
  );
  return { code: run.code, result: JSON.parse(run.stdout) as Record<string, unknown> };
}

describe.each(adapters)('API auth and audit trail on the %s adapter', (adapter) => {
  it('enforces token permissions and audits control calls in a verifiable chain', async () => {
    const dir = tempDir('sigmad-auth-');
    const stateDb = join(dir, 'state');
    const sink = join(dir, 'audit.ndjson');
    const d = await startDaemon(['--rules', join(FIXTURES, 'rules'), '--input', 'http', '--api-addr', '127.0.0.1:0', '--http-adapter', adapter, '--state-db', stateDb], {
      env: { ...TOKENS, SVC_API__AUTH__TOKENS: AUTH_TOKENS, SVC_API__AUDIT__SINK: `file://${sink}`, SVC_API__AUDIT__MAX_BODY_BYTES: '256' },
    });
    running = d;
    expect(d.logs.find((l) => l.includes('"listening"'))).toMatch(new RegExp(`"adapter":"${adapter}".*"auth":true`));

    const events = { method: 'POST', url: '/api/v1/events', body: '{"EventID":1}\n' };
    const noToken = await d.request(events);
    expect(noToken.status).toBe(401);
    expect(noToken.headers['www-authenticate']).toBe('Bearer');
    expect((await d.request({ ...events, headers: bearer('wrong') })).status).toBe(401);
    const dashIngest = await d.json({ ...events, headers: bearer(TOKENS.T_DASH) });
    expect(dashIngest).toEqual({ status: 403, body: { error: "token lacks required permission 'events:ingest'" } });
    expect((await d.request({ ...events, headers: bearer(TOKENS.T_SHIP) })).status).toBe(200);
    expect((await d.request({ method: 'GET', url: '/api/v1/status', headers: bearer(TOKENS.T_SHIP) })).status).toBe(403);
    expect((await d.request({ method: 'GET', url: '/api/v1/status', headers: bearer(TOKENS.T_DASH) })).status).toBe(200);
    expect((await d.request({ method: 'GET', url: '/healthz' })).status).toBe(200);

    const silenceBody = JSON.stringify({ matchers: [{ selector: 'rule', op: '=', value: 'whoami' }] });
    const created = await d.json({ method: 'POST', url: '/api/v1/silences', headers: bearer(TOKENS.T_OPS), body: silenceBody });
    expect(created.status).toBe(201);
    const id = String(created.body['id']);
    expect((await d.request({ method: 'DELETE', url: `/api/v1/silences/${id}`, headers: bearer(TOKENS.T_OPS) })).status).toBe(200);
    const big = await d.json({ method: 'POST', url: '/api/v1/silences', headers: bearer(TOKENS.T_OPS), body: JSON.stringify({ matchers: [{ selector: 'rule', op: '=', value: 'x'.repeat(300) }] }) });
    expect(big).toEqual({ status: 413, body: { error: 'request body exceeds audit max_body_bytes', max_body_bytes: 256 } });
    // A refused control call is not audited.
    expect((await d.request({ method: 'POST', url: '/api/v1/reload', headers: bearer(TOKENS.T_DASH) })).status).toBe(403);

    const audit = await d.json({ method: 'GET', url: '/api/v1/audit', headers: bearer(TOKENS.T_DASH) });
    expect(audit.status).toBe(200);
    expect(audit.body['count']).toBe(3);
    const entries = audit.body['entries'] as Record<string, unknown>[];
    expect(entries.map((e) => [e['id'], e['method'], e['endpoint'], e['token'], e['status']])).toEqual([
      [3, 'POST', '/api/v1/silences', 'ops', 413],
      [2, 'DELETE', '/api/v1/silences/{id}', 'ops', 200],
      [1, 'POST', '/api/v1/silences', 'ops', 201],
    ]);
    expect(entries[2]?.['payload_digest']).toBe(createHash('sha256').update(silenceBody).digest('hex'));
    expect(entries[1]?.['payload_digest']).toBeUndefined();
    expect(entries[0]?.['prev_hash']).toBe(entries[1]?.['hash']);
    expect((await d.json({ method: 'GET', url: '/api/v1/audit?limit=1&offset=1', headers: bearer(TOKENS.T_DASH) })).body['entries']).toEqual([entries[1]]);

    const metrics = (await d.request({ method: 'GET', url: '/metrics', headers: bearer(TOKENS.T_DASH) })).text;
    expect(metrics).toMatch(/^svc_api_auth_failures_total\{reason="unauthorized"\} 2$/m);
    expect(metrics).toMatch(/^svc_api_auth_failures_total\{reason="forbidden"\} 3$/m);
    expect(metrics).toMatch(/^svc_audit_records_total 3$/m);
    const lines = await waitFor(() => {
      const text = (() => {
        try {
          return readFileSync(sink, 'utf8');
        } catch {
          return '';
        }
      })();
      const l = text.split('\n').filter((x) => x !== '');
      return l.length === 3 ? l : undefined;
    }, 10_000, 'three audit sink lines');
    expect(JSON.parse(lines[2] ?? '{}')).toEqual(entries[0]);

    d.kill();
    expect(await d.exited).toBe(0);
    expect(await verify(stateDb)).toEqual({ code: 0, result: { ok: true, records: 3, first_id: 1, last_id: 3 } });

    // Edit one stored record (its status) behind the daemon's back: verify names it.
    const env = open({ path: stateDb, maxDbs: 16, compression: false });
    const table = env.openDB({ name: 'audit', encoding: 'binary' });
    const record = JSON.parse(Buffer.from(table.get(2) as Buffer).toString('utf8')) as Record<string, unknown>;
    await table.put(2, Buffer.from(JSON.stringify({ ...record, status: 404 })));
    await env.close();
    const broken = await verify(stateDb);
    expect(broken.code).toBe(1);
    expect(broken.result).toMatchObject({ ok: false, broken: { id: 2, reason: expect.stringContaining('edited') } });
  }, 90_000);
});

describe('audit atomicity under SIGKILL', () => {
  it('commits an API silence or disposition together with its audit record, or neither', async () => {
    const stateDb = join(tempDir('sigmad-audit-crash-'), 'state');
    const start = (crashAt?: string) =>
      startDaemon(['--rules', join(FIXTURES, 'rules'), '--input', 'http', '--api-addr', '127.0.0.1:0', '--state-db', stateDb, '--enable-dispositions'], {
        env: crashAt === undefined ? {} : { SVC_CRASH_AT: crashAt },
      });
    const silence = { method: 'POST', url: '/api/v1/silences', body: JSON.stringify({ matchers: [{ selector: 'rule', op: '=', value: 'whoami' }] }) };
    const disposition = { method: 'POST', url: '/api/v1/dispositions', body: JSON.stringify({ rule_id: 'r1', verdict: 'false_positive', fingerprint: 'f1' }) };
    /** What the daemon holds now: silences, disposition records, and the audited endpoints. */
    const held = async (d: RunningDaemon) => ({
      silences: ((await d.json({ method: 'GET', url: '/api/v1/silences' })).body['silences'] as unknown[]).length,
      dispositions: (((await d.json({ method: 'GET', url: '/api/v1/dispositions' })).body['rules'] as { total: number }[])[0]?.total ?? 0),
      audited: ((await d.json({ method: 'GET', url: '/api/v1/audit' })).body['entries'] as { endpoint: string }[]).map((e) => e.endpoint).reverse(),
    });
    // Each run posts one call and dies at the named point; the next run (or the last) sees what committed.
    const runs: [string, typeof silence][] = [
      ['before-audit-commit', silence],
      ['after-audit-commit', silence],
      ['after-audit-commit', disposition],
    ];
    const seen: Awaited<ReturnType<typeof held>>[] = [];
    for (const [point, call] of runs) {
      const d = await start(point);
      running = d;
      seen.push(await held(d));
      await d.request(call).catch(() => undefined);
      expect(await d.exited).toBe('SIGKILL');
      running = undefined;
    }
    const d = await start();
    running = d;
    seen.push(await held(d));
    expect(seen).toEqual([
      { silences: 0, dispositions: 0, audited: [] },
      { silences: 0, dispositions: 0, audited: [] },
      { silences: 1, dispositions: 0, audited: ['/api/v1/silences'] },
      { silences: 1, dispositions: 1, audited: ['/api/v1/silences', '/api/v1/dispositions'] },
    ]);
    d.kill();
    await d.exited;
    running = undefined;
    expect(await verify(stateDb)).toEqual({ code: 0, result: { ok: true, records: 2, first_id: 1, last_id: 2 } });
  }, 120_000);
});
