import { describe, expect, it } from 'vitest';
import { guardApp } from '../../http/auth-guard.js';
import type { ApiToken, AuthPolicy } from '../../http/bearer-auth.js';
import { FakeDaemonFacade } from './fake-facade.js';
import { createHttpApp } from '../../http/http-app.js';
import { inject } from '../../http/inject.js';
import { parsePermission, type Permission } from '../../http/permissions.js';
import { defineRoute, type Route } from '../../http/route.js';
import { FAIL_CLOSED, ROUTE_PERMISSIONS, requiredPermission } from '../../http/route-permissions.js';
import { ROUTES } from '../../http/routes.js';
import { sendJson } from '../../http/respond.js';

const token = (name: string, permissions: readonly Permission[]): ApiToken => ({ name, secret: `secret-${name}`, permissions });
const NOTHING: Permission = { resource: 'nothing', action: 'none' };

function guarded(routes: readonly Route[], policy: AuthPolicy, rejections: string[] = []) {
  return guardApp(createHttpApp(routes, new FakeDaemonFacade(), { onError: () => undefined }), routes, policy, (r) => rejections.push(r.reason));
}

const url = (path: string) => path.replace(/\{[a-z_]+\}/g, 'x');
const bearer = (name: string) => ({ authorization: `Bearer secret-${name}` });

describe('route → permission table', () => {
  it('lists every route of the table with open or a well-formed permission', () => {
    for (const r of ROUTES) {
      const listed = ROUTE_PERMISSIONS[`${r.method} ${r.path}`];
      expect(listed, `${r.method} ${r.path} has no permission`).toBeDefined();
      expect(listed === 'open' || parsePermission(listed ?? '') !== undefined, `${r.method} ${r.path}: ${listed}`).toBe(true);
    }
  });

  it('asks *:* of a matched route it does not list (fail-closed)', () => {
    expect(requiredPermission('GET', '/api/v1/not-listed')).toEqual(FAIL_CLOSED);
  });

  it.each(ROUTES.map((r) => [`${r.method} ${r.path}`, r] as const))('%s: no token, wrong token, lacking and holding', async (_name, route) => {
    const required = requiredPermission(route.method, route.path);
    const holds = required === 'open' ? [] : [required];
    const rejections: string[] = [];
    const app = guarded(ROUTES, { anonymous: [], tokens: [token('holder', holds), token('lacker', [NOTHING])] }, rejections);
    const request = (headers: Record<string, string>) => inject(app, { method: route.method, url: url(route.path), headers, body: '{}' });

    const anonymous = await request({});
    const wrong = await request({ authorization: 'Bearer not-a-token' });
    const lacking = await request(bearer('lacker'));
    const holding = await request(bearer('holder'));
    if (required === 'open') {
      for (const r of [anonymous, wrong, lacking, holding]) expect(r.status).not.toBe(401);
      expect(rejections).toEqual([]);
      return;
    }
    for (const r of [anonymous, wrong]) {
      expect(r.status).toBe(401);
      expect(r.headers['www-authenticate']).toBe('Bearer');
      expect(r.json()).toEqual({ error: 'missing or invalid bearer token' });
    }
    expect(lacking.status).toBe(403);
    expect(lacking.json()).toEqual({ error: `token lacks required permission '${required.resource}:${required.action}'` });
    expect([401, 403]).not.toContain(holding.status);
    expect(rejections).toEqual(['unauthorized', 'unauthorized', 'forbidden']);
  });

  it('refuses a route missing from the table to every token but one holding *', async () => {
    const extra = defineRoute({ method: 'GET', path: '/api/v1/unlisted', schema: {}, handle: (_req, res) => sendJson(res, 200, {}) });
    const all: Permission = { resource: '*', action: '*' };
    const app = guarded([extra], { anonymous: [{ resource: '*', action: 'read' }], tokens: [token('reader', [{ resource: '*', action: 'read' }]), token('admin', [all])] });
    expect((await inject(app, { method: 'GET', url: '/api/v1/unlisted' })).status).toBe(401);
    expect((await inject(app, { method: 'GET', url: '/api/v1/unlisted', headers: bearer('reader') })).status).toBe(403);
    expect((await inject(app, { method: 'GET', url: '/api/v1/unlisted', headers: bearer('admin') })).status).toBe(200);
  });

  it('lets anonymous requests do what anonymous_permissions cover, and only exactly `Bearer ` counts as a token', async () => {
    const app = guarded(ROUTES, { anonymous: [{ resource: 'status', action: 'read' }], tokens: [token('admin', [FAIL_CLOSED])] });
    expect((await inject(app, { method: 'GET', url: '/api/v1/status' })).status).toBe(200);
    expect((await inject(app, { method: 'GET', url: '/api/v1/rules' })).status).toBe(401);
    // Another scheme is no token: judged as anonymous.
    expect((await inject(app, { method: 'GET', url: '/api/v1/status', headers: { authorization: 'Basic eA==' } })).status).toBe(200);
    expect((await inject(app, { method: 'GET', url: '/api/v1/rules', headers: { authorization: 'bearer secret-admin' } })).status).toBe(401);
    expect((await inject(app, { method: 'GET', url: '/api/v1/rules', headers: bearer('admin') })).status).toBe(200);
    // 404s need no credentials.
    expect((await inject(app, { method: 'GET', url: '/api/v1/nope' })).status).toBe(404);
  });
});
