export type { Chunk, HttpApp, Req, Res } from './handler.js';
export type {
  DaemonFacade,
  DynamicSources,
  Dispositions,
  EventIngest,
  OtlpIngest,
  FieldObserver,
  LiveSink,
  LiveStream,
  SchemaObserver,
  SilenceCreateResult,
  SilenceStore,
  TailRequest,
  TapRequest,
} from './facade.js';
export { IngestClosedError, IngestTooLargeError } from './facade.js';
export { createHttpApp, DEFAULT_MAX_BODY_BYTES, type HttpAppOptions } from './http-app.js';
export { createStartupApp, type StartupApp, type StartupAppParts } from './startup-app.js';
export {
  defineRoute,
  type Method,
  type Route,
  type RouteDef,
  type RouteFeature,
  type RouteSchema,
  type ValidReq,
} from './route.js';
export { ROUTES, INGEST_MAX_BODY_BYTES, TAP_DEFAULT_DURATION_MS } from './routes.js';
export { createNdjsonStream, type NdjsonStream, type NdjsonStreamOptions } from './ndjson-stream.js';
export { splitIngestLines, type IngestLines } from './ingest-lines.js';
export { inject, type InjectOptions, type InjectRequest, type InjectResponse } from './inject.js';
export { NDJSON_CONTENT_TYPE, sendError, sendJson } from './respond.js';
export { DEFAULT_CLOSE_GRACE_MS, type HttpServer } from './http-server.js';
export { listenUws } from './uws-server.js';
export { listenNode } from './node-server.js';
export { listenHttp, uwsNativeAvailable, type AdapterChoice, type ListenTls } from './listen.js';
export { guardApp, type AuthRejection } from './auth-guard.js';
export type { ApiToken, AuthPolicy } from './bearer-auth.js';
export { BUILTIN_ROLES, parsePermission, type Permission } from './permissions.js';
export type { AuditLog } from './audited-request.js';
export { ENCRYPTED_KEY_HINT, loadTlsMaterial, type TlsMaterial, type TlsSettings } from './tls-material.js';
export type { TlsHooks, TlsListener } from './tls-server.js';
export { formatListenAddress, isLoopbackAddress, parseListenAddress, type ListenAddress } from './listen-address.js';
export type { IncidentApi } from './facade.js';
export { bindOwnerOnly, prepareUnixSocketPath, removeUnixSocket, restrictUnixSocket } from './unix-socket.js';
