import type { Static, TSchema } from 'typebox';
import type { ApiErrorCode } from '../protocol/index.js';
import type { DaemonFacade } from './facade.js';
import type { Req, Res } from './handler.js';

/** A route of the table: method, path, typebox schemas of its inputs, and a thin handler. */

type Method = 'GET' | 'POST' | 'DELETE';

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
interface RouteFeature<F> {
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
