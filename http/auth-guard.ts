import { API_ERRORS } from '../protocol/index.js';
import { compileAccessCheck, type AuthPolicy } from './bearer-auth.js';
import type { HttpApp, Res } from './handler.js';
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
  /** The token the request may go on with, or the answer that refuses it (reported once, here). */
  const decide = (method: string, path: string, headers: Readonly<Record<string, string>>): { readonly token?: string } | ((res: Res) => void) => {
    const found = paths.match(path);
    if (found.kind !== 'found' || !found.value.methods.has(method)) return {};
    const route = found.value.path;
    const required = requiredPermission(method, route);
    if (required === 'open') return {};
    const decision = check(headers['authorization'], required);
    if (decision.allowed) return decision.token === undefined ? {} : { token: decision.token };
    if (decision.reason === 'unauthorized') {
      onReject({ reason: 'unauthorized', method, route });
      return (res) => {
        res.header('www-authenticate', 'Bearer');
        sendError(res, 'unauthorized');
      };
    }
    onReject({ reason: 'forbidden', method, route, token: decision.token, permission: decision.permission });
    return (res) => sendJson(res, API_ERRORS.forbidden.status, { error: `${API_ERRORS.forbidden.error} '${decision.permission}'` });
  };
  return {
    bodyLimit: (method, path) => inner.bodyLimit(method, path),
    rejectOversizedBody: (res) => inner.rejectOversizedBody(res),
    refuseEarly(method, path, headers) {
      const decision = decide(method, path, headers);
      return typeof decision === 'function' ? decision : undefined;
    },
    async handle(req, res) {
      const decision = decide(req.method, req.path, req.headers);
      if (typeof decision === 'function') return decision(res);
      return inner.handle(decision.token === undefined ? req : { ...req, token: decision.token }, res);
    },
  };
}
