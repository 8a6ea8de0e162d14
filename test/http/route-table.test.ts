import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FakeDaemonFacade } from './fake-facade.js';
import { inject } from '../../http/inject.js';
import { createHttpApp } from '../../http/http-app.js';
import { ROUTES } from '../../http/routes.js';
import { section, tableRows } from '../protocol/contract-tables.js';

/** (method, path) pairs of the contract's endpoint summary table; gRPC is not an HTTP route. */
function contractRoutes(): string[] {
  const summary = section('Endpoints').split('### Probes')[0] ?? '';
  const pairs: string[] = [];
  for (const [methods = '', paths = ''] of tableRows(summary)) {
    if (methods === 'Method' || methods === 'gRPC') continue;
    for (const method of methods.split(',').map((m) => m.trim())) {
      for (const path of paths.split(',').map((p) => p.trim())) pairs.push(`${method} ${path}`);
    }
  }
  return pairs.sort();
}

/**
 * Routes issues add beyond the contract's table: the audit trail (issue 18, daemon-semantics §18.6),
 * one incident with its bundle (issue 13, daemon-semantics §9), the state report behind
 * `sigmad state inspect --url` (issue 18), the web console's static files (issue 22) and the cluster
 * view (issue 21).
 */
const BEYOND_CONTRACT = ['GET /api/v1/audit', 'GET /api/v1/incidents/{id}', 'GET /api/v1/incidents/{id}/bundle', 'GET /api/v1/state', 'GET /ui', 'GET /ui/', 'GET /ui/assets/{build}/{file}', 'GET /api/v1/cluster'];

describe('route table', () => {
  it('serves exactly the routes of the contract summary table', () => {
    const contract = contractRoutes();
    expect(contract.length).toBeGreaterThanOrEqual(30);
    expect(ROUTES.map((r) => `${r.method} ${r.path}`).filter((r) => !BEYOND_CONTRACT.includes(r)).sort()).toEqual(contract);
  });

  it('answers any request with a JSON-typed response and never throws', async () => {
    const facade = new FakeDaemonFacade({ httpInput: true, dispositions: true, observeFields: true, tap: true, tail: true });
    const errors: unknown[] = [];
    const app = createHttpApp(ROUTES, facade, { maxBodyBytes: 256, onError: (e) => errors.push(e) });
    const paths = [...new Set(ROUTES.map((r) => r.path.replace(/\{[a-z_]+\}/, 'x')))];
    const path = fc.oneof(
      fc.constantFrom(...paths),
      fc.webPath(),
      fc.constantFrom(...paths).chain((p) => fc.string().map((s) => `${p}/${encodeURIComponent(s)}`)),
    );
    const query = fc.oneof(fc.constant(''), fc.webQueryParameters().map((q) => `?${q}`), fc.string().map((s) => `?${s}`));
    const body = fc.oneof(fc.string(), fc.json(), fc.uint8Array({ maxLength: 300 }));
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('GET', 'POST', 'DELETE', 'PUT', 'PATCH'), path, query, body, async (method, p, q, b) => {
        const controller = new AbortController();
        const pending = inject(app, { method, url: `${p}${q}`, body: b }, { signal: controller.signal });
        // Live sessions stay open until the client leaves.
        for (const stream of [facade.tap, facade.tail]) for (const s of stream?.sessions ?? []) if (!s.closed) controller.abort();
        const res = await pending;
        if (res.aborted) return;
        expect(res.headers['content-type']).toBeDefined();
        if (res.status >= 400) expect(typeof (res.json() as { error?: unknown }).error).toBe('string');
      }),
      { numRuns: 400 },
    );
    expect(errors).toEqual([]);
  });
});
