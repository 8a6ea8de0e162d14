import type { Static, TSchema } from 'typebox';
import Compile from 'typebox/compile';
import type { ApiErrorCode } from '../protocol/errors.js';
import type { DaemonFacade } from './facade.js';
import type { HttpApp, Req, Res } from './handler.js';
import { sendError } from './respond.js';

export type Method = 'GET' | 'POST' | 'DELETE';

export interface RouteSchema {
  readonly params?: TSchema;
  readonly query?: TSchema;
  /** JSON body schema; without it the handler reads `req.body` itself. */
  readonly body?: TSchema;
  /** Catalogue error answered when validation fails (default `request_invalid`). */
  readonly invalid?: ApiErrorCode;
  /** Shape of the success body (documentation and tests; not checked per request). */
  readonly response?: TSchema;
}

type Checked<S extends TSchema | undefined, Absent> = S extends TSchema ? Static<S> : Absent;

export interface ValidReq<S extends RouteSchema> extends Req {
  readonly input: {
    readonly params: Checked<S['params'], Readonly<Record<string, string>>>;
    readonly query: Checked<S['query'], Readonly<Record<string, never>>>;
    readonly body: Checked<S['body'], undefined>;
  };
}

/** An optional surface of the facade a route needs; absent → the catalogue's disabled error. */
export interface RouteFeature<F> {
  readonly select: (d: DaemonFacade) => F | undefined;
  readonly disabled: ApiErrorCode;
}

export interface RouteDef<S extends RouteSchema, F> {
  readonly method: Method;
  /** Path with `{name}` parameters. */
  readonly path: string;
  readonly schema: S;
  /** Checked before any validation, so a disabled feature answers its disabled error. */
  readonly feature?: RouteFeature<F>;
  /** Body cap for this route; default `HttpAppOptions.maxBodyBytes`. */
  readonly maxBodyBytes?: number;
  readonly handle: (req: ValidReq<S>, res: Res, d: DaemonFacade, feature: F) => void | Promise<void>;
}

/** A route with its types erased, as stored in the table. */
export interface Route {
  readonly method: Method;
  readonly path: string;
  readonly schema: RouteSchema;
  readonly feature?: RouteFeature<unknown>;
  readonly maxBodyBytes?: number;
  readonly handle: (req: ValidReq<RouteSchema>, res: Res, d: DaemonFacade, feature: unknown) => void | Promise<void>;
}

/** Declare a route; infers the handler's input types from its typebox schemas and feature. */
export function defineRoute<const S extends RouteSchema, F = undefined>(def: RouteDef<S, F>): Route {
  return def as unknown as Route;
}

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

interface Pattern {
  readonly segments: readonly string[];
  readonly byMethod: Map<string, CompiledRoute>;
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
  const staticPatterns = new Map<string, Pattern>();
  const paramPatterns: Pattern[] = [];
  for (const route of routes) {
    const key = route.path;
    let pattern = staticPatterns.get(key) ?? paramPatterns.find((p) => p.segments.join('/') === key);
    if (pattern === undefined) {
      pattern = { segments: key.split('/'), byMethod: new Map() };
      if (key.includes('{')) paramPatterns.push(pattern);
      else staticPatterns.set(key, pattern);
    }
    if (pattern.byMethod.has(route.method)) throw new Error(`duplicate route ${route.method} ${route.path}`);
    pattern.byMethod.set(route.method, compileRoute(route));
  }

  const match = (method: string, path: string): Match => {
    const exact = staticPatterns.get(path);
    if (exact !== undefined) return pick(exact, method, {});
    const segments = path.split('/');
    for (const pattern of paramPatterns) {
      const params = matchSegments(pattern.segments, segments);
      if (params === 'bad_path') return { kind: 'bad_path' };
      if (params !== undefined) return pick(pattern, method, params);
    }
    return { kind: 'none' };
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
          case 'route':
            return await serve(m.compiled, m.params, raw, res, facade);
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
    ...(params !== undefined ? { params: Compile(params) as Validator } : {}),
    ...(query !== undefined ? { query: Compile(query) as Validator } : {}),
    ...(body !== undefined ? { body: Compile(body) as Validator } : {}),
  };
}

function pick(pattern: Pattern, method: string, params: Record<string, string>): Match {
  const compiled = pattern.byMethod.get(method);
  if (compiled !== undefined) return { kind: 'route', compiled, params };
  return { kind: 'method', allowed: [...pattern.byMethod.keys()] };
}

function matchSegments(
  pattern: readonly string[],
  segments: readonly string[],
): Record<string, string> | undefined | 'bad_path' {
  if (pattern.length !== segments.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i] as string;
    const s = segments[i] as string;
    if (p.startsWith('{')) {
      if (s === '') return undefined;
      try {
        params[p.slice(1, -1)] = decodeURIComponent(s);
      } catch {
        return 'bad_path';
      }
    } else if (p !== s) return undefined;
  }
  return params;
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
