// HTTP under hostile input. Every query parameter of every route (and hostile bodies), through the
// route table: the answer is a documented status and every rejection a JSON error of the catalogue,
// never an internal error. Raw bytes on both real adapters: truncated, mutated and pipelined
// requests never take the server down, and it answers a health check after each.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeDaemonFacade } from '../http/fake-facade.js';
import { LISTENERS } from '../http/listeners.js';
import { createHttpApp } from '../../http/http-app.js';
import type { HttpApp } from '../../http/handler.js';
import type { HttpServer } from '../../http/http-server.js';
import { inject } from '../../http/inject.js';
import { ROUTES } from '../../http/routes.js';
import { API_ERRORS } from '../../protocol/errors.js';
import { rawExchange, statuses } from '../http/raw-client.js';
import { collectGarbage } from '../sigma/engine/heap-allocation.js';
import { fuzzParams, fuzzTimeout } from './budget.js';
import { hostileLine, mutated } from './inputs.js';

const QUERY_KEYS = ['id', 'group', 'limit', 'offset', 'duration', 'stage', 'redact', 'level', 'rule', 'x', ''];
const SUCCESS = new Set([200, 201, 202, 204]);
const ERRORS = Object.values(API_ERRORS).filter((e) => e.status !== 500);
const queryValue = fc.oneof(
  hostileLine,
  fc.constantFrom('-1', '0', '1', '1e9', '99999999999999999999', '5m', '1h', 'high', 'raw', 'decoded', '%', '%zz', '&', '=', ''),
);
const query = fc
  .array(fc.tuple(fc.constantFrom(...QUERY_KEYS), queryValue), { maxLength: 5 })
  .map((pairs) => pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&'));
const pathParam = fc.oneof(fc.string({ maxLength: 20 }), hostileLine.map((l) => l.slice(0, 50))).map((s) => encodeURIComponent(s) || 'x');
const body = fc.oneof(fc.constant(undefined), hostileLine, fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)));

function appFor(facade: FakeDaemonFacade): { app: HttpApp; failures: unknown[] } {
  const failures: unknown[] = [];
  return { app: createHttpApp(ROUTES, facade, { onError: (e) => failures.push(e) }), failures };
}

describe('every route under hostile query parameters and bodies', () => {
  const targets = [
    appFor(new FakeDaemonFacade({ httpInput: true, dispositions: true, observeFields: true, discoverSchemas: true, tap: true, tail: true, sources: [] })),
    appFor(new FakeDaemonFacade()),
  ];

  it('answers a documented status, rejections as catalogue JSON errors', { timeout: fuzzTimeout() }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...ROUTES), fc.constantFrom(0, 1), pathParam, query, body, async (route, t, param, q, b) => {
        const { app, failures } = targets[t] ?? (targets[0] as (typeof targets)[number]);
        const url = `${route.path.replace(/\{[a-z_]+\}/g, param)}?${q}`;
        // Live sessions stay open: the client leaves once the answer has started.
        const leave = new AbortController();
        const answer = inject(app, { method: route.method, url, ...(b !== undefined ? { body: b } : {}) }, { signal: leave.signal, onChunk: () => leave.abort() });
        setTimeout(() => leave.abort(), 20);
        const res = await answer;
        expect(failures).toEqual([]);
        if (res.aborted && res.status === 200) return;
        if (SUCCESS.has(res.status)) return;
        expect(res.headers['content-type']).toBe('application/json');
        const json = res.json() as { error?: unknown };
        expect(ERRORS.some((e) => e.status === res.status && e.error === json.error)).toBe(true);
      }),
      fuzzParams(),
    );
  });
});

const VALID = [
  'GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n',
  'GET /api/v1/correlations/state?id=x&group=y HTTP/1.1\r\nHost: t\r\n\r\n',
  'POST /api/v1/events HTTP/1.1\r\nHost: t\r\nContent-Type: application/x-ndjson\r\nContent-Length: 16\r\n\r\n{"a":1}\n{"b":2}\n',
  'POST /api/v1/silences HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"ma"\r\n0\r\n\r\n',
];
const HEALTH = 'GET /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n';
const rawInput = fc.oneof(
  fc.constantFrom(...VALID).chain((r) => mutated(r)),
  fc.tuple(fc.constantFrom(...VALID), fc.nat()).map(([r, n]) => r.slice(0, n % r.length)),
  fc.array(fc.constantFrom(...VALID), { minLength: 2, maxLength: 6 }).map((rs) => rs.join('')),
  fc.uint8Array({ maxLength: 500 }).map((b) => Buffer.from(b).toString('latin1')),
);

describe.each(LISTENERS)('raw requests fuzzed on the %s adapter', (_name, listen) => {
  let server: HttpServer;
  beforeAll(async () => {
    server = await listen(createHttpApp(ROUTES, new FakeDaemonFacade({ httpInput: true })), { kind: 'tcp', host: '127.0.0.1', port: 0 });
  });
  afterAll(() => server.close(100));

  it('stays up and well-formed', { timeout: fuzzTimeout() }, async () => {
    await fc.assert(
      fc.asyncProperty(rawInput, fc.boolean(), async (input, truncate) => {
        const res = await rawExchange(server.address, { pieces: [input], endAfter: truncate, quietMs: 100, maxMs: 5_000 });
        for (const s of statuses(res.text)) expect(s >= 100 && s < 600 && s !== 500).toBe(true);
        const health = await rawExchange(server.address, { pieces: [HEALTH], quietMs: 2_000 });
        expect(statuses(health.text)).toEqual([200]);
      }),
      fuzzParams(),
    );
  });

  // Nothing a bad request leaves behind may accumulate: after the storm and a full collection, the heap
  // (server and client share this process) is back within HEAP_SLACK of where it was before it. The
  // budget scales the storm (thousands of requests in `npm run fuzz`), so a leak of a few hundred bytes
  // per request shows there.
  it('returns to its heap baseline after a storm of bad requests', { timeout: fuzzTimeout() + SETTLE_MS }, async () => {
    // Connections in parallel, so the storm is dense within the budget.
    const wave = fc.array(fc.tuple(rawInput, fc.boolean()), { minLength: 1, maxLength: 16 });
    const storm = async (requests: readonly (readonly [string, boolean])[]): Promise<void> => {
      sent += requests.length;
      await Promise.all(requests.map(([input, truncate]) => rawExchange(server.address, { pieces: [input], endAfter: truncate, quietMs: 100, maxMs: 5_000 })));
    };
    let sent = 0;
    // A first round warms up what is allocated once (compiled code, pools, lazily built tables).
    for (const requests of fc.sample(wave, 4)) await storm(requests);
    const baseline = settledHeap();
    sent = 0;
    await fc.assert(fc.asyncProperty(wave, storm), fuzzParams());
    // Closed connections are released asynchronously: collect until the heap is back, or SETTLE_MS passed.
    let retained = settledHeap() - baseline;
    for (const until = Date.now() + SETTLE_MS; retained > HEAP_SLACK && Date.now() < until; retained = settledHeap() - baseline) {
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(sent).toBeGreaterThan(0);
    expect(retained, `${sent} requests left ${retained} bytes`).toBeLessThanOrEqual(HEAP_SLACK);
  });
});

const HEAP_SLACK = 4 * 1_048_576;
const SETTLE_MS = 10_000;

/** Heap in use after full collections (the smallest of three readings). */
function settledHeap(): number {
  let least = Infinity;
  for (let i = 0; i < 3; i++) {
    collectGarbage();
    least = Math.min(least, process.memoryUsage().heapUsed);
  }
  return least;
}
