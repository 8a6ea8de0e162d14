import type { HttpApp } from '../../http/handler.js';
import type { HttpServer } from '../../http/http-server.js';
import type { ListenAddress } from '../../http/listen-address.js';
import { listenHttp } from '../../http/listen.js';

export type Listen = (app: HttpApp, a: ListenAddress) => Promise<HttpServer>;

/** Both adapters as the daemon listens with them: uWS behind the OTLP/gRPC front, and node:http behind its own. */
export const LISTENERS: readonly (readonly [name: 'uws' | 'node', listen: Listen])[] = [
  ['uws', (app, a) => listenHttp(app, a, 'uws')],
  ['node', (app, a) => listenHttp(app, a, 'node')],
];
