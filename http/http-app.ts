import type { DaemonFacade } from './facade.js';
import { AUDITED_ROUTES, runAudited } from './audited-request.js';
import type { HttpApp, Req, Res } from './handler.js';
import { compilePathMatcher } from './path-matcher.js';
import { sendError } from './respond.js';
import type { Route, RouteSchema, ValidReq } from './route.js';
import { compileOnUse } from '../protocol/index.js';

/**
 * Turns a route table into the app adapters serve: validators compiled once, on their route's first
 * request; per request match, feature check, validation, then the handler; 404/405/400/500 answered
 * from the catalogue.
 */

export interface HttpAppOptions {
  /** Default body cap (JSON routes). */
  readonly maxBodyBytes?: number;
  /** Called with errors thrown by handlers (answered 500). */
  readonly onError?: (error: unknown, req: Omit<Req, 'params'>) => void;
}

export const DEFAULT_MAX_BODY_BYTES = 1_048_576;

interface Validator {
  Check(value: unknown): boolean;
  Convert(value: unknown): unknown;
  Errors(value: unknown): readonly { instancePath: string; message: string }[];
}

interface CompiledRoute {
  readonly route: Route;
  readonly params?: Validator;
  readonly query?: Validator;
  readonly body?: Validator;
}

type Match =
  | { readonly kind: 'route'; readonly compiled: CompiledRoute; readonly params: Record<string, string> }
  | { readonly kind: 'method'; readonly allowed: readonly string[] }
  | { readonly kind: 'none' }
  | { readonly kind: 'bad_path' };

const decoder = new TextDecoder('utf-8', { fatal: true });

/** Compile a route table (validators once) into the app adapters serve. */
export function createHttpApp(routes: readonly Route[], facade: DaemonFacade, options: HttpAppOptions = {}): HttpApp {
  const defaultLimit = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const byPath = new Map<string, Map<string, CompiledRoute>>();
  for (const route of routes) {
    const methods = byPath.get(route.path) ?? new Map<string, CompiledRoute>();
    if (methods.has(route.method)) throw new Error(`duplicate route ${route.method} ${route.path}`);
    methods.set(route.method, compileRoute(route));
    byPath.set(route.path, methods);
  }
  const paths = compilePathMatcher([...byPath]);

  const match = (method: string, path: string): Match => {
    const found = paths.match(path);
    if (found.kind !== 'found') return found;
    const compiled = found.value.get(method);
    if (compiled !== undefined) return { kind: 'route', compiled, params: found.params };
    return { kind: 'method', allowed: [...found.value.keys()] };
  };

  return {
    bodyLimit(method, path) {
      const m = match(method, path);
      return m.kind === 'route' ? (m.compiled.route.maxBodyBytes ?? defaultLimit) : defaultLimit;
    },
    rejectOversizedBody(res) {
      res.header('connection', 'close');
      sendError(res, 'body_too_large');
    },
    async handle(raw, res) {
      try {
        const m = match(raw.method, raw.path);
        switch (m.kind) {
          case 'none':
            return sendError(res, 'route_not_found', { path: raw.path });
          case 'bad_path':
            return sendError(res, 'request_invalid', { detail: 'malformed percent-encoding in path' });
          case 'method':
            res.header('allow', m.allowed.join(', '));
            return sendError(res, 'method_not_allowed', { allowed: m.allowed });
          case 'route': {
            const run = (r: Res): Promise<void> => serve(m.compiled, m.params, raw, r, facade);
            const { method, path } = m.compiled.route;
            // Audited control calls answer only once their audit record is durable.
            if (facade.audit !== undefined && AUDITED_ROUTES.has(`${method} ${path}`)) return await runAudited(facade.audit, path, raw, res, run);
            return await run(res);
          }
          default:
            return assertNever(m);
        }
      } catch (error) {
        options.onError?.(error, raw);
        if (!res.closed) sendError(res, 'internal_error');
      }
    },
  };
}

function compileRoute(route: Route): CompiledRoute {
  const { params, query, body } = route.schema;
  return {
    route,
    ...(params !== undefined ? { params: compileOnUse(params) as Validator } : {}),
    ...(query !== undefined ? { query: compileOnUse(query) as Validator } : {}),
    ...(body !== undefined ? { body: compileOnUse(body) as Validator } : {}),
  };
}

async function serve(
  compiled: CompiledRoute,
  params: Record<string, string>,
  raw: Omit<Req, 'params'>,
  res: Res,
  facade: DaemonFacade,
): Promise<void> {
  const { route } = compiled;
  let feature: unknown;
  if (route.feature !== undefined) {
    feature = route.feature.select(facade);
    if (feature === undefined) return sendError(res, route.feature.disabled);
  }
  const invalid = route.schema.invalid ?? 'request_invalid';
  const checkedParams = check(compiled.params, params);
  if (!checkedParams.ok) return sendError(res, invalid, { detail: checkedParams.detail });
  const checkedQuery = check(compiled.query, firstValues(raw.query));
  if (!checkedQuery.ok) return sendError(res, invalid, { detail: checkedQuery.detail });
  let body: unknown;
  if (compiled.body !== undefined) {
    const parsed = parseJsonBody(raw.body);
    if (!parsed.ok) return sendError(res, 'body_malformed');
    const checkedBody = check(compiled.body, parsed.value);
    if (!checkedBody.ok) return sendError(res, invalid, { detail: checkedBody.detail });
    body = checkedBody.value;
  }
  const req: ValidReq<RouteSchema> = {
    ...raw,
    params,
    input: { params, query: checkedQuery.value as Record<string, never>, body: body as undefined },
  };
  await route.handle(req, res, facade, feature);
}

type CheckResult = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly detail: string };

function check(validator: Validator | undefined, value: unknown): CheckResult {
  if (validator === undefined) return { ok: true, value };
  const converted = validator.Convert(value);
  if (validator.Check(converted)) return { ok: true, value: converted };
  const first = validator.Errors(converted)[0];
  return { ok: false, detail: first === undefined ? 'invalid' : `${first.instancePath || '/'} ${first.message}` };
}

/** Query parameters as an object; a repeated key keeps its first value. */
function firstValues(query: URLSearchParams): Record<string, string> {
  const first = new Map<string, string>();
  for (const [k, v] of query) if (!first.has(k)) first.set(k, v);
  return Object.fromEntries(first);
}

/** An empty body reads as `{}` so "no body" and "empty object" mean the same. */
function parseJsonBody(body: Uint8Array): { readonly ok: true; readonly value: unknown } | { readonly ok: false } {
  try {
    const text = decoder.decode(body);
    return { ok: true, value: text.trim() === '' ? {} : (JSON.parse(text) as unknown) };
  } catch {
    return { ok: false };
  }
}

function assertNever(x: never): never {
  throw new Error(`unexpected ${String(x)}`);
}
