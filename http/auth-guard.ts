import { API_ERRORS } from '../protocol/index.js';
import { compileAccessCheck, type AuthPolicy } from './bearer-auth.js';
import type { HttpApp } from './handler.js';
import { compilePathMatcher } from './path-matcher.js';
import { sendError, sendJson } from './respond.js';
import type { Route } from './route.js';
import { requiredPermission } from './route-permissions.js';

export interface AuthRejection {
  readonly reason: 'unauthorized' | 'forbidden';
  readonly method: string;
  readonly route: string;
  readonly token?: string;
  readonly permission?: string;
}

/**
 * Wraps an app with bearer-token checks on every matched route (unmatched paths fall through to
 * the app's 404/405: they need no credentials). The request handed on names its token.
 */
export function guardApp(inner: HttpApp, routes: readonly Route[], policy: AuthPolicy, onReject: (r: AuthRejection) => void): HttpApp {
  const check = compileAccessCheck(policy);
  const byPath = new Map<string, Set<string>>();
  for (const r of routes) byPath.set(r.path, (byPath.get(r.path) ?? new Set()).add(r.method));
  const paths = compilePathMatcher([...byPath].map(([path, methods]) => [path, { path, methods }] as const));
  return {
    bodyLimit: (method, path) => inner.bodyLimit(method, path),
    rejectOversizedBody: (res) => inner.rejectOversizedBody(res),
    async handle(req, res) {
      const found = paths.match(req.path);
      if (found.kind !== 'found' || !found.value.methods.has(req.method)) return inner.handle(req, res);
      const route = found.value.path;
      const required = requiredPermission(req.method, route);
      if (required === 'open') return inner.handle(req, res);
      const decision = check(req.headers['authorization'], required);
      if (decision.allowed) return inner.handle(decision.token === undefined ? req : { ...req, token: decision.token }, res);
      if (decision.reason === 'unauthorized') {
        onReject({ reason: 'unauthorized', method: req.method, route });
        res.header('www-authenticate', 'Bearer');
        return sendError(res, 'unauthorized');
      }
      onReject({ reason: 'forbidden', method: req.method, route, token: decision.token, permission: decision.permission });
      sendJson(res, API_ERRORS.forbidden.status, { error: `${API_ERRORS.forbidden.error} '${decision.permission}'` });
    },
  };
}
