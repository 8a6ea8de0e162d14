import { describe, expect, it } from 'vitest';
import { FakeDaemonFacade } from './fake-facade.js';
import { createHttpApp } from '../../http/http-app.js';
import { inject } from '../../http/inject.js';
import { ROUTES } from '../../http/routes.js';
import { createStartupApp } from '../../http/startup-app.js';

function startingApp(phase = 'loading rules') {
  return createStartupApp(ROUTES, { phase: () => phase, metrics: () => Promise.resolve({ contentType: 'text/plain; version=0.0.4', text: 'svc_up 1\n' }) });
}

describe('start-up listener', () => {
  it('answers liveness, readiness 503 starting and metrics while the daemon starts', async () => {
    const app = startingApp();
    const health = await inject(app, { method: 'GET', url: '/healthz' });
    expect([health.status, health.json()]).toEqual([200, { status: 'ok' }]);
    const ready = await inject(app, { method: 'GET', url: '/readyz' });
    expect(ready.status).toBe(503);
    expect(ready.json()).toMatchObject({ status: 'starting', rules_loaded: false });
    const metrics = await inject(app, { method: 'GET', url: '/metrics' });
    expect([metrics.status, metrics.headers['content-type'], metrics.text]).toEqual([200, 'text/plain; version=0.0.4', 'svc_up 1\n']);
  });

  it('refuses every other route (ingest included) with 503 naming the phase; unknown paths stay 404', async () => {
    const app = startingApp('replaying state');
    for (const request of [
      { method: 'POST', url: '/api/v1/events', body: '{"a":1}\n' },
      { method: 'GET', url: '/api/v1/status' },
      { method: 'DELETE', url: '/api/v1/silences/x' },
      { method: 'GET', url: '/api/v1/tap' },
    ]) {
      const res = await inject(app, request);
      expect(res.status).toBe(503);
      expect(res.headers['content-type']).toBe('application/json');
      expect(res.json()).toMatchObject({ error: 'daemon starting', status: 'starting', phase: 'replaying state' });
      expect(typeof (res.json() as Record<string, unknown>)['hint']).toBe('string');
    }
    expect((await inject(app, { method: 'GET', url: '/api/v2/nothing' })).status).toBe(404);
  });

  it('keeps the ingest body cap, and hands every request to the real app once opened', async () => {
    const app = startingApp();
    expect(app.bodyLimit('POST', '/api/v1/events')).toBeGreaterThan(app.bodyLimit('POST', '/api/v1/silences'));
    app.open(createHttpApp(ROUTES, new FakeDaemonFacade()));
    const ready = await inject(app, { method: 'GET', url: '/readyz' });
    expect([ready.status, ready.json()]).toEqual([200, { status: 'ready', rules_loaded: true }]);
    expect((await inject(app, { method: 'GET', url: '/api/v1/status' })).status).toBe(200);
  });
});
