// Webhooks on the real daemon against local receivers (issue 15): each signing scheme verified by
// the receiver, 503 then 200 (retried after Retry-After), 400 dead-lettered without retries, a
// rate-limited hook, the egress policy refusing addresses with the denial in the DLQ, `sigmad
// webhook verify` on a captured request, and a SIGKILL while a request is in flight: the restart
// sends the same webhook-id with the same signature once more and nothing else twice.
import { execFile } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, FIXTURES, MAIN, ndjson, readNdjson, startDaemon, tempDir, waitFor } from './harness.js';
import type { RunningDaemon } from './harness.js';

beforeAll(ensureBuilt, 180_000);

const SECRET = 'e2e-webhook-secret';
const EVENTS = ndjson([{ CommandLine: 'whoami /a' }, { CommandLine: 'whoami /b' }, { CommandLine: 'whoami /c' }]);

interface Received {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  readonly at: number;
}

/** A local receiver: records every request; `answer` decides the reply (or leaves it hanging). */
async function receiver(answer: (r: Received, n: number, res: ServerResponse) => void): Promise<{ server: Server; url: string; got: Received[] }> {
  const got: Received[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (c: string) => (body += c));
    req.on('end', () => {
      const r = { path: req.url ?? '', headers: req.headers, body, at: Date.now() };
      got.push(r);
      answer(r, got.filter((g) => g.path === r.path).length, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, got };
}

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

const mac = (payload: string, enc: 'hex' | 'base64' = 'base64'): string => createHmac('sha256', SECRET).update(payload).digest(enc);
const metric = (text: string, series: string): number => Number(new RegExp(`^${series.replace(/[{}]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1]);
const dlqLines = (path: string): Record<string, unknown>[] => (existsSync(path) ? readNdjson(path) : []);

function hook(id: string, url: string, extra = ''): string {
  return `  - id: ${id}\n    kind: detection\n    url: "${url}"\n    headers: { Content-Type: application/json }\n    body: '{"title":"\${detection.rule.title}","cmd":"\${detection.fields.CommandLine}"}'\n    retry: { attempts: 3, backoff: 50ms, max_backoff: 200ms }\n${extra}`;
}

describe('webhooks', () => {
  let daemon: RunningDaemon;
  let rx: Awaited<ReturnType<typeof receiver>>;
  let dir: string;
  beforeAll(async () => {
    dir = tempDir('webhooks');
    rx = await receiver((r, n, res) => {
      if (r.path === '/flaky' && n === 1) return void res.writeHead(503, { 'retry-after': '1' }).end();
      if (r.path === '/bad') return void res.writeHead(400).end('no');
      // The first request hangs past the hook's timeout; the first on /closing loses its connection.
      if (r.path === '/hang' && n === 1) return;
      if (r.path === '/closing' && n === 1) return void res.socket?.destroy();
      res.writeHead(200).end('ok');
    });
    const u = rx.url;
    writeFileSync(join(dir, 'hooks.yml'), `webhooks:\n${[
      hook('standard', `${u}/standard`, '    signing: { secret_env: E2E_SECRET }\n'),
      hook('github', `${u}/github`, '    signing: { secret_env: E2E_SECRET, scheme: github }\n'),
      hook('custom', `${u}/custom`, "    signing:\n      secret_env: E2E_SECRET\n      scheme: custom\n      custom: { signature_header: X-Sig, value_format: 'v={signature}', signed_payload: '{id}:{timestamp}:{body}', timestamp_header: X-Ts, id_header: X-Id }\n"),
      hook('flaky', `${u}/flaky`),
      hook('bad', `${u}/bad`),
      hook('limited', `${u}/limited`, '    rate_limit: { requests: 1, per: 300ms }\n'),
      hook('hang', `${u}/hang`, '    timeout: 300ms\n'),
      hook('closing', `${u}/closing`),
      hook('metadata', 'http://169.254.169.254/latest/meta-data', '    timeout: 2s\n'),
    ].join('')}`);
    daemon = await startDaemon(
      ['--rules', join(FIXTURES, 'rules'), '--input', 'http', '--input-format', 'json', '--api-addr', '127.0.0.1:0', '--output', `file://${join(dir, 'out.ndjson')}`, '--dlq', `file://${join(dir, 'dlq.ndjson')}`, '--webhook', dir],
      { env: { E2E_SECRET: SECRET } },
    );
    const res = await daemon.json({ method: 'POST', url: '/api/v1/events', body: EVENTS });
    expect(res.body).toEqual({ accepted: 3, parse_errors: 0 });
  }, 60_000);
  afterAll(async () => {
    daemon?.kill();
    await daemon?.exited;
    if (rx !== undefined) await closeServer(rx.server);
  });

  const requests = (path: string, n: number): Promise<Received[]> => waitFor(() => {
    const got = rx.got.filter((r) => r.path === path);
    return got.length >= n ? got : undefined;
  }, 20_000, `${n} requests on ${path}`);

  it('signs Standard Webhooks requests with an id derived from the result id', async () => {
    const got = await requests('/standard', 3);
    const ids = readNdjson(join(dir, 'out.ndjson')).map((r) => r['result_id']);
    expect(got.map((r) => r.headers['webhook-id'])).toEqual(ids.map((id) => `msg_${String(id)}`));
    for (const r of got) {
      const { 'webhook-id': id, 'webhook-timestamp': ts } = r.headers;
      expect(r.headers['webhook-signature']).toBe(`v1,${mac(`${String(id)}.${String(ts)}.${r.body}`)}`);
      expect(JSON.parse(r.body)).toMatchObject({ title: 'Whoami Execution', cmd: expect.stringMatching(/^whoami \/[abc]$/) });
    }
  });

  it('signs GitHub and custom requests', async () => {
    for (const r of await requests('/github', 3)) expect(r.headers['x-hub-signature-256']).toBe(`sha256=${mac(r.body, 'hex')}`);
    for (const r of await requests('/custom', 3)) {
      expect(r.headers['x-id']).toMatch(/^msg_e/);
      expect(r.headers['x-sig']).toBe(`v=${mac(`${String(r.headers['x-id'])}:${String(r.headers['x-ts'])}:${r.body}`, 'hex')}`);
    }
  });

  it('sigmad webhook verify accepts a captured request and rejects a tampered one', async () => {
    const [r] = await requests('/standard', 1);
    const capture = (body: string): string => {
      const file = join(dir, `capture-${body.length}.http`);
      writeFileSync(file, `POST /standard HTTP/1.1\r\n${['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((h) => `${h}: ${String(r?.headers[h])}`).join('\r\n')}\r\n\r\n${body}`);
      return file;
    };
    const run = (file: string) => promisify(execFile)(process.execPath, [MAIN, 'webhook', 'verify', '--scheme', 'standard', '--secret-env', 'E2E_SECRET', '--request', file], { env: { ...process.env, E2E_SECRET: SECRET } });
    const ok = await run(capture(r?.body ?? ''));
    expect(JSON.parse(ok.stdout)).toEqual({ scheme: 'standard', valid: true });
    const bad = await run(capture(`${r?.body ?? ''} `)).then(() => undefined, (e: { code: number; stdout: string }) => e);
    expect(bad?.code).toBe(1);
    expect(JSON.parse(bad?.stdout ?? '{}')).toMatchObject({ valid: false });
  });

  it('retries a 503 after its Retry-After, with the same id and signature', async () => {
    const got = await requests('/flaky', 4);
    const [first, second] = got;
    expect(second?.headers['webhook-id'] ?? second?.body).toBe(first?.headers['webhook-id'] ?? first?.body);
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(950);
    const metrics = (await daemon.request({ method: 'GET', url: '/metrics' })).text;
    await waitFor(async () => metric((await daemon.request({ method: 'GET', url: '/metrics' })).text, 'svc_webhook_requests_total{webhook_id="flaky",outcome="success"}') === 3 || undefined);
    expect(metric(metrics, 'svc_sink_retries_total{sink="flaky"}')).toBe(1);
  });

  it('retries a receiver that hangs past the timeout or closes the connection', async () => {
    for (const path of ['/hang', '/closing']) {
      const got = await requests(path, 4);
      expect(got[1]?.body).toBe(got[0]?.body);
    }
    await waitFor(async () => {
      const text = (await daemon.request({ method: 'GET', url: '/metrics' })).text;
      return ['hang', 'closing'].every((id) => metric(text, `svc_webhook_requests_total{webhook_id="${id}",outcome="success"}`) === 3) || undefined;
    }, 20_000, 'the retried deliveries');
    expect(dlqLines(join(dir, 'dlq.ndjson')).filter((e) => /webhook (hang|closing)/.test(String(e['error'])))).toEqual([]);
  });

  it('dead-letters a 400 at once with the reason, and a denied address with the egress denial', async () => {
    const lines = await waitFor(() => {
      const l = dlqLines(join(dir, 'dlq.ndjson'));
      return l.filter((e) => String(e['error']).includes('webhook bad')).length === 3 && l.some((e) => String(e['error']).includes('webhook metadata')) ? l : undefined;
    }, 20_000, 'dead letters');
    expect(lines.find((e) => String(e['error']).includes('webhook bad'))?.['error']).toBe('sink delivery failure: webhook bad: HTTP 400');
    expect(String(lines.find((e) => String(e['error']).includes('webhook metadata'))?.['error'])).toContain('egress policy denied link-local address 169.254.169.254');
    expect(rx.got.filter((r) => r.path === '/bad')).toHaveLength(3);
    const metrics = (await daemon.request({ method: 'GET', url: '/metrics' })).text;
    expect(metric(metrics, 'svc_webhook_requests_total{webhook_id="bad",outcome="permanent_failure"}')).toBe(3);
    expect(metric(metrics, 'svc_sink_retries_total{sink="bad"}')).toBe(0);
    expect(metric(metrics, 'svc_sink_delivery_failures_total{sink="bad"}')).toBe(3);
    expect(metric(metrics, 'svc_webhook_request_duration_seconds_count{webhook_id="standard"}')).toBe(3);
  });

  it('waits for rate-limit tokens and counts the waits', async () => {
    const got = await requests('/limited', 3);
    // Tokens come 300 ms apart, so the third is sent ≥ 600 ms after the first; what the receiver sees can be
    // shorter by the first request's own delay (its connection is set up first), so allow 200 ms of it.
    expect((got[2]?.at ?? 0) - (got[0]?.at ?? 0)).toBeGreaterThanOrEqual(400);
    const metrics = (await daemon.request({ method: 'GET', url: '/metrics' })).text;
    expect(metric(metrics, 'svc_webhook_requests_total{webhook_id="limited",outcome="rate_limited_wait"}')).toBeGreaterThanOrEqual(1);
  });
});

describe('the strict egress policy', () => {
  it('refuses a loopback receiver and says so in the dead letter', async () => {
    const dir = tempDir('webhooks-strict');
    const rx = await receiver((_r, _n, res) => void res.writeHead(200).end());
    writeFileSync(join(dir, 'hook.yml'), `webhooks:\n${hook('local', `${rx.url}/x`).replace('attempts: 3', 'attempts: 1')}`);
    const dlq = join(dir, 'dlq.ndjson');
    const daemon = await startDaemon(['--rules', join(FIXTURES, 'rules'), '--input', 'http', '--input-format', 'json', '--api-addr', '127.0.0.1:0', '--dlq', `file://${dlq}`, '--webhook', join(dir, 'hook.yml'), '--egress-policy', 'strict']);
    try {
      await daemon.json({ method: 'POST', url: '/api/v1/events', body: ndjson([{ CommandLine: 'whoami' }]) });
      const [line] = await waitFor(() => (dlqLines(dlq).length > 0 ? dlqLines(dlq) : undefined), 20_000, 'the dead letter');
      expect(String(line?.['error'])).toContain('egress policy denied loopback address 127.0.0.1');
      expect(rx.got).toHaveLength(0);
    } finally {
      daemon.kill();
      await daemon.exited;
      await closeServer(rx.server);
    }
  }, 60_000);
});

describe('a crash while a webhook request is in flight', () => {
  it('re-sends that webhook-id with the same signature after the restart, and nothing else twice', async () => {
    const dir = tempDir('webhooks-crash');
    let hang = true;
    const rx = await receiver((_r, n, res) => {
      // The second request is left unanswered: the daemon is killed before it learns the outcome.
      if (n === 2 && hang) return;
      res.writeHead(200).end();
    });
    writeFileSync(join(dir, 'hook.yml'), `webhooks:\n${hook('standard', `${rx.url}/s`, '    signing: { secret_env: E2E_SECRET }\n')}`);
    const args = ['--rules', join(FIXTURES, 'rules'), '--input', 'http', '--input-format', 'json', '--api-addr', '127.0.0.1:0', '--output', `file://${join(dir, 'out.ndjson')}`, '--state-db', join(dir, 'state'), '--webhook', join(dir, 'hook.yml')];
    const env = { E2E_SECRET: SECRET };
    let daemon = await startDaemon(args, { env });
    try {
      await daemon.json({ method: 'POST', url: '/api/v1/events', body: EVENTS });
      await waitFor(() => rx.got.length >= 2 || undefined, 20_000, 'the in-flight request');
      daemon.kill('SIGKILL');
      await daemon.exited;
      hang = false;
      daemon = await startDaemon(args, { env });
      await waitFor(() => rx.got.length >= 4 || undefined, 20_000, 'the redelivery');
      const ids = readNdjson(join(dir, 'out.ndjson')).map((r) => `msg_${String(r['result_id'])}`);
      expect(rx.got.map((r) => r.headers['webhook-id'])).toEqual([ids[0], ids[1], ids[1], ids[2]]);
      const signing = (r: Received | undefined) => [r?.headers['webhook-timestamp'], r?.headers['webhook-signature'], r?.body];
      expect(signing(rx.got[2])).toEqual(signing(rx.got[1]));
    } finally {
      daemon.kill();
      await daemon.exited;
      await closeServer(rx.server);
    }
  }, 90_000);
});

describe('a bad webhook file', () => {
  it('stops start-up with exit 3 naming the file, the entry id and the key', async () => {
    const dir = tempDir('webhooks-bad');
    const file = join(dir, 'hook.yml');
    writeFileSync(file, `webhooks:\n${hook('h1', 'http://127.0.0.1/x', '    signing: { secret_env: E2E_UNSET_SECRET }\n')}`);
    const daemon = await startDaemon(['--rules', join(FIXTURES, 'rules'), '--api-addr', '127.0.0.1:0', '--webhook', file, '--egress-policy', 'permissive'], { noWait: true });
    expect(await daemon.exited).toBe(3);
    expect(daemon.logs.join('\n')).toContain(`--webhook (daemon.output.webhooks): ${file}: webhook h1: signing.secret_env environment variable E2E_UNSET_SECRET is unset or empty`);
  }, 30_000);

  it('and an unknown egress policy exits 3 naming the key', async () => {
    const daemon = await startDaemon(['--rules', join(FIXTURES, 'rules'), '--api-addr', '127.0.0.1:0', '--egress-policy', 'open'], { noWait: true });
    expect(await daemon.exited).toBe(3);
    expect(daemon.logs.join('\n')).toContain('daemon.engine.egress_policy');
  }, 30_000);
});
