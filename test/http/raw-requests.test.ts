// Requests a parser refuses, on both adapters: the server stays up, a client trickling its headers
// (slowloris) is cut within a bound, pipelined requests are answered in order, and node:http's
// refusals are JSON errors of the catalogue (uWS closes such connections without a response).
// Found by the raw-socket fuzzing: node:http held a trickling client for up to 90 s and answered its
// parser errors with empty non-JSON responses.
import { afterAll, beforeAll, describe, it } from 'vitest';
import { FakeDaemonFacade } from './fake-facade.js';
import { LISTENERS } from './listeners.js';
import { createHttpApp } from '../../http/http-app.js';
import type { HttpServer } from '../../http/http-server.js';
import { ROUTES } from '../../http/routes.js';
import { API_ERRORS } from '../../protocol/errors.js';
import { rawExchange, statuses } from './raw-client.js';

/** Both adapters cut a trickling client after about 10 s; the bound leaves room for a busy machine. */
const SLOWLORIS_BOUND_MS = 20_000;

// Concurrent: the exchanges mostly wait (on a trickle, a quiet period), each on its own connection.
describe.concurrent.each(LISTENERS)('raw requests on the %s adapter', (adapter, listen) => {
  let server: HttpServer;
  beforeAll(async () => {
    server = await listen(createHttpApp(ROUTES, new FakeDaemonFacade({ httpInput: true })), { kind: 'tcp', host: '127.0.0.1', port: 0 });
  });
  afterAll(() => server.close(100));

  it('answers pipelined requests in order', async ({ expect }) => {
    const one = 'GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n';
    const missing = 'GET /nope HTTP/1.1\r\nHost: t\r\n\r\n';
    const res = await rawExchange(server.address, { pieces: [one + missing + one] });
    expect(statuses(res.text)).toEqual([200, 404, 200]);
  });

  it('cuts a client that trickles its headers within the bound', { timeout: SLOWLORIS_BOUND_MS + 10_000 }, async ({ expect }) => {
    const pieces = ['GET /healthz HTTP/1.1\r\nHost: t\r\nX-Slow: ', ...Array.from({ length: 40 }, () => 'a')];
    const res = await rawExchange(server.address, { pieces, gapMs: 1_000, quietMs: SLOWLORIS_BOUND_MS + 5_000, maxMs: SLOWLORIS_BOUND_MS + 5_000 });
    expect(res.closedByServer).toBe(true);
    expect(res.ms).toBeLessThan(SLOWLORIS_BOUND_MS);
    if (adapter === 'node') expect(res.text).toMatch(/^HTTP\/1\.1 408 .*\r\n\r\n\{"error":"request headers not received in time"\}$/s);
  });

  // Found by test/fuzz/http.fuzz.test.ts: the front put the bytes back, and at the end of the stream
  // they made it readable again at once, spinning the main thread for as long as the process lived.
  it('closes a connection that sends two bytes and half-closes', async ({ expect }) => {
    const res = await rawExchange(server.address, { pieces: ['GE'], endAfter: true, quietMs: 5_000 });
    expect(res.closedByServer).toBe(true);
    expect(res.text).toBe('');
  });

  it('closes a connection that sends nothing within the bound', { timeout: SLOWLORIS_BOUND_MS + 10_000 }, async ({ expect }) => {
    const res = await rawExchange(server.address, { pieces: [], quietMs: SLOWLORIS_BOUND_MS + 5_000, maxMs: SLOWLORIS_BOUND_MS + 5_000 });
    expect(res.closedByServer).toBe(true);
    expect(res.ms).toBeLessThan(SLOWLORIS_BOUND_MS);
    expect(res.text).toBe('');
  });

  it.for([
    ['a malformed request line', 'GARBAGE\r\n\r\n', API_ERRORS.request_malformed],
    ['oversized headers', `GET /healthz HTTP/1.1\r\nHost: t\r\nX-Big: ${'b'.repeat(70_000)}\r\n\r\n`, API_ERRORS.request_headers_too_large],
  ] as const)('refuses %s and keeps serving', async ([, request, spec], { expect }) => {
    const res = await rawExchange(server.address, { pieces: [request] });
    if (adapter === 'node') {
      expect(statuses(res.text)).toEqual([spec.status]);
      expect(res.text.slice(res.text.indexOf('\r\n\r\n') + 4)).toBe(JSON.stringify({ error: spec.error }));
    } else {
      // uWS closes on what it cannot parse and takes headers far larger than node's 16 KiB.
      expect(statuses(res.text).every((s) => s === 200 || s >= 400)).toBe(true);
    }
    const after = await rawExchange(server.address, { pieces: ['GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n'] });
    expect(statuses(after.text)).toEqual([200]);
  });
});
