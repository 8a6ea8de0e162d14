// TLS on the API listener (issue 18, daemon-semantics §18.3): TLS 1.3 only unless --tls-min-version
// 1.2, ALPN h2 then http/1.1, mTLS with --tls-client-ca, expiry gauge and warning, certificate
// rotation through the reload path, and the start-up refusals. TLS is served by the node adapter.
import { readFileSync, writeFileSync } from 'node:fs';
import { connect as h2connect } from 'node:http2';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { connect, type ConnectionOptions, type SecureVersion } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encryptKey, makeCa, makeLeaf, type Pem } from './certificates.js';
import { ensureBuilt, FIXTURES, startDaemon, tempDir, waitFor, type RunningDaemon } from './harness.js';

const RULES = join(FIXTURES, 'rules');
const dir = tempDir('sigmad-tls-');
let ca: Pem;
let server: Pem;
let clientCa: Pem;
let client: Pem;
let rogueClient: Pem;

interface Reply {
  readonly status: number;
  readonly text: string;
}

interface ClientOptions {
  readonly cert?: Pem;
  readonly maxVersion?: SecureVersion;
  readonly method?: string;
}

function port(d: RunningDaemon): number {
  if (d.address.kind !== 'tcp') throw new Error('tcp expected');
  return d.address.port;
}

/** One HTTPS/1.1 request trusting the test CA; rejects when the handshake or the connection fails. */
function httpsCall(d: RunningDaemon, path: string, o: ClientOptions = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      {
        host: '127.0.0.1',
        port: port(d),
        path,
        method: o.method ?? 'GET',
        ca: readFileSync(ca.cert),
        agent: false,
        ...(o.maxVersion !== undefined ? { maxVersion: o.maxVersion } : {}),
        ...(o.cert !== undefined ? { cert: readFileSync(o.cert.cert), key: readFileSync(o.cert.key) } : {}),
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** A bare handshake: the negotiated ALPN protocol, version and the server certificate's serial. */
function handshake(d: RunningDaemon, o: ConnectionOptions): Promise<{ alpn: string | false; version: string | null; serial: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port: port(d), ca: readFileSync(ca.cert), servername: 'localhost', ...o }, () => {
      const result = { alpn: socket.alpnProtocol ?? false, version: socket.getProtocol(), serial: socket.getPeerCertificate().serialNumber };
      socket.end();
      resolve(result);
    });
    socket.on('error', reject);
  });
}

/** One HTTP/2 request (no Content-Length: the body is the stream). */
function h2Call(d: RunningDaemon, method: string, path: string, body?: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const session = h2connect(`https://127.0.0.1:${port(d)}`, { ca: readFileSync(ca.cert), servername: 'localhost' });
    session.on('error', reject);
    const stream = session.request({ ':method': method, ':path': path });
    let status = 0;
    let text = '';
    stream.on('response', (h) => (status = Number(h[':status'])));
    stream.setEncoding('utf8').on('data', (c: string) => (text += c));
    stream.on('end', () => {
      session.close();
      resolve({ status, text });
    });
    stream.on('error', reject);
    stream.end(body);
  });
}

async function metric(d: RunningDaemon, name: string, cert?: Pem): Promise<number> {
  const text = (await httpsCall(d, '/metrics', cert !== undefined ? { cert } : {})).text;
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return Number(line?.split(' ')[1]);
}

const daemons: RunningDaemon[] = [];
async function start(args: readonly string[]): Promise<RunningDaemon> {
  const d = await startDaemon(['--rules', RULES, '--input', 'http', '--api-addr', '127.0.0.1:0', ...args]);
  daemons.push(d);
  return d;
}

/** Exit code and last stderr line of a daemon that must not start. */
async function refused(args: readonly string[]): Promise<{ code: number | string; message: string }> {
  const d = await startDaemon(['--rules', RULES, ...args], { noWait: true });
  const code = await d.exited;
  return { code, message: d.logs.filter((l) => l.trim() !== '').at(-1) ?? '' };
}

beforeAll(async () => {
  await ensureBuilt();
  ca = makeCa(dir, 'ca');
  server = makeLeaf(dir, ca, 'server', 10, 'sec1');
  clientCa = makeCa(dir, 'client-ca');
  client = makeLeaf(dir, clientCa, 'client', 30);
  rogueClient = makeLeaf(dir, makeCa(dir, 'rogue-ca'), 'rogue', 30);
}, 180_000);

afterAll(async () => {
  for (const d of daemons) {
    d.kill();
    await d.exited;
  }
});

describe('TLS listener', () => {
  it('serves TLS 1.3 only by default, offers h2 then http/1.1, reports expiry, and rotates the certificate on reload', async () => {
    const d = await start(['--tls-cert', server.cert, '--tls-key', server.key]);
    expect(d.logs.find((l) => l.includes('"listening"'))).toMatch(/"adapter":"node".*"scheme":"https"/);
    expect(d.logs.some((l) => l.includes('certificate expires within 30 days'))).toBe(true);
    expect((await httpsCall(d, '/healthz')).status).toBe(200);

    const h2 = await handshake(d, { ALPNProtocols: ['h2', 'http/1.1'] });
    expect(h2).toMatchObject({ alpn: 'h2', version: 'TLSv1.3' });
    expect((await handshake(d, { ALPNProtocols: ['http/1.1'] })).alpn).toBe('http/1.1');
    // HTTP/2 requests are served, bodies without Content-Length included.
    expect(await h2Call(d, 'GET', '/api/v1/status')).toMatchObject({ status: 200 });
    expect(await h2Call(d, 'POST', '/api/v1/events', '{"EventID":1}\n{"EventID":2}\n')).toEqual({ status: 200, text: '{"accepted":2,"parse_errors":0}' });
    await expect(handshake(d, { maxVersion: 'TLSv1.2' })).rejects.toThrow();
    await expect(httpsCall(d, '/healthz', { maxVersion: 'TLSv1.2' })).rejects.toThrow();

    const expiry = await metric(d, 'svc_tls_certificate_expiry_seconds');
    expect(expiry).toBeGreaterThan(9 * 86_400);
    expect(expiry).toBeLessThanOrEqual(10 * 86_400);
    // The scrape's own connection is open while it is served.
    expect(await metric(d, 'svc_tls_active_connections')).toBeGreaterThanOrEqual(1);

    // Rotate: a new leaf (400 days) replaces the files; the reload path swaps it in for new handshakes.
    const next = makeLeaf(dir, ca, 'server-next', 400, 'pkcs8');
    writeFileSync(server.cert, readFileSync(next.cert));
    writeFileSync(server.key, readFileSync(next.key));
    expect((await httpsCall(d, '/api/v1/reload', { method: 'POST' })).status).toBe(200);
    await waitFor(() => d.logs.some((l) => l.includes('certificate reloaded')) || undefined, 20_000, 'the certificate reload');
    const rotated = await handshake(d, {});
    expect(rotated.serial).not.toBe(h2.serial);
    expect(await metric(d, 'svc_tls_certificate_expiry_seconds')).toBeGreaterThan(399 * 86_400);

    // A reload that cannot read the certificate keeps the previous one and counts a failed step.
    writeFileSync(server.cert, '');
    await httpsCall(d, '/api/v1/reload', { method: 'POST' });
    await waitFor(() => d.logs.some((l) => l.includes('certificate reload failed')) || undefined, 20_000, 'the failed reload');
    expect((await handshake(d, {})).serial).toBe(rotated.serial);
    expect(await metric(d, 'svc_reloads_failed_total')).toBeGreaterThanOrEqual(1);
  }, 90_000);

  it('requires a client certificate from the client CA under --tls-client-ca, and takes TLS 1.2 with --tls-min-version 1.2', async () => {
    const rsa = makeLeaf(dir, ca, 'server-rsa', 30, 'pkcs1');
    const d = await start(['--tls-cert', rsa.cert, '--tls-key', rsa.key, '--tls-client-ca', clientCa.cert, '--tls-min-version', 'tls1.2']);
    expect(d.logs.find((l) => l.includes('"listening"'))).toMatch(/"adapter":"node".*"scheme":"https\+mtls"/);
    expect((await httpsCall(d, '/healthz', { cert: client })).status).toBe(200);
    expect((await httpsCall(d, '/healthz', { cert: client, maxVersion: 'TLSv1.2' })).status).toBe(200);
    await expect(httpsCall(d, '/healthz')).rejects.toThrow();
    await expect(httpsCall(d, '/healthz', { cert: rogueClient })).rejects.toThrow();
    await waitFor(() => d.logs.some((l) => l.includes('TLS handshake failed')) || undefined, 10_000, 'the handshake failure log');
  }, 60_000);

  it('starts with an expired certificate, warning and with a negative expiry gauge', async () => {
    const expired = makeLeaf(dir, ca, 'expired', -1, 'pkcs8');
    const d = await start(['--tls-cert', expired.cert, '--tls-key', expired.key]);
    expect(d.logs.some((l) => l.includes('certificate expired'))).toBe(true);
    const text = await new Promise<string>((resolve, reject) => {
      const req = httpsRequest({ host: '127.0.0.1', port: port(d), path: '/metrics', rejectUnauthorized: false, agent: false }, (res) => {
        let t = '';
        res.setEncoding('utf8').on('data', (c: string) => (t += c));
        res.on('end', () => resolve(t));
      });
      req.on('error', reject);
      req.end();
    });
    expect(Number(/^svc_tls_certificate_expiry_seconds (\S+)$/m.exec(text)?.[1])).toBeLessThan(0);
  }, 60_000);
});

describe('TLS start-up refusals (exit 3)', () => {
  it.each([
    ['plaintext on a non-loopback address', () => ['--api-addr', '0.0.0.0:0'], /refusing plaintext.*--tls-cert.*--allow-plaintext/],
    ['an encrypted key', () => { const enc = makeLeaf(dir, ca, 'enc', 30); return ['--api-addr', '127.0.0.1:0', '--tls-cert', enc.cert, '--tls-key', encryptKey(dir, enc.key)]; }, /encrypted private keys are unsupported.*openssl pkey/],
    ['a key password', () => ['--api-addr', '127.0.0.1:0', '--tls-key-password', 'x'], /tls.key_password.*encrypted private keys/],
    ['an empty certificate file', () => { const empty = join(dir, 'empty.pem'); writeFileSync(empty, ''); return ['--api-addr', '127.0.0.1:0', '--tls-cert', empty, '--tls-key', client.key]; }, /the file is empty/],
    ['an invalid client CA', () => { const bad = join(dir, 'bad-ca.pem'); writeFileSync(bad, 'not a certificate'); return ['--api-addr', '127.0.0.1:0', '--tls-cert', client.cert, '--tls-key', client.key, '--tls-client-ca', bad]; }, /client CA .*no PEM certificate/],
    ['a certificate with the wrong key', () => ['--api-addr', '127.0.0.1:0', '--tls-cert', client.cert, '--tls-key', rogueClient.key], /does not belong to certificate/],
    ['TLS with --http-adapter uws', () => ['--api-addr', '127.0.0.1:0', '--tls-cert', client.cert, '--tls-key', client.key, '--http-adapter', 'uws'], /cannot serve TLS/],
  ])('refuses %s', async (_what, args, message) => {
    const { code, message: line } = await refused(args());
    expect(code).toBe(3);
    expect(line).toMatch(/^sigmad: /);
    expect(line).toMatch(message);
  }, 30_000);

  it('starts plaintext on 0.0.0.0 with --allow-plaintext', async () => {
    const d = await startDaemon(['--rules', RULES, '--input', 'http', '--api-addr', '0.0.0.0:0', '--allow-plaintext']);
    daemons.push(d);
    expect(d.logs.find((l) => l.includes('"listening"'))).toMatch(/"scheme":"http"/);
  }, 30_000);
});
