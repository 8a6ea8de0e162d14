export type { Chunk, HttpApp, Req, Res } from './handler.js';
export type {
  DaemonFacade,
  DynamicSources,
  Dispositions,
  EventIngest,
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
export { FakeDaemonFacade, FakeLiveStream, type FakeFeatures } from './fake-facade.js';
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
export { JSON_CONTENT_TYPE, NDJSON_CONTENT_TYPE, sendError, sendJson } from './respond.js';
export { DEFAULT_CLOSE_GRACE_MS, type HttpServer } from './http-server.js';
export { listenUws } from './uws-server.js';
export { listenNode } from './node-server.js';
export { listenHttp, uwsNativeAvailable, type AdapterChoice } from './listen.js';
export { DEFAULT_API_ADDR, formatListenAddress, parseListenAddress, type ListenAddress } from './listen-address.js';
