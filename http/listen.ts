import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { DaemonConfig } from '../protocol/index.js';
import type { HttpApp } from './handler.js';
import { INGEST_MAX_BODY_BYTES } from './routes.js';
import type { HttpServer } from './http-server.js';
import type { ListenAddress } from './listen-address.js';
import { listenNode } from './node-server.js';
import { otlpGrpcFront } from './otlp-grpc.js';
import type { TlsMaterial } from './tls-material.js';
import { listenTls, type TlsHooks, type TlsListener } from './tls-server.js';
import { listenUwsBehindFront } from './uws-front.js';

export type AdapterChoice = DaemonConfig['api']['adapter'];

/**
 * True when uWebSockets.js ships a native binary for this platform and Node ABI. Without one the
 * package silently switches to a JS fallback that breaks on query strings, so we never use it.
 */
export function uwsNativeAvailable(): boolean {
  try {
    const entry = createRequire(import.meta.url).resolve('uWebSockets.js');
    const binary = `uws_${process.platform}_${process.arch}_${process.versions.modules}.node`;
    return existsSync(join(dirname(entry), '..', 'binaries', binary));
  } catch {
    return false;
  }
}

/** TLS for the listener: served by the node adapter (see tls-server.ts). */
export interface ListenTls {
  readonly material: TlsMaterial;
  /** Require client certificates chaining to the material's CA. */
  readonly mutual: boolean;
  readonly hooks: TlsHooks;
}

/**
 * Listen with the chosen adapter; `auto` takes uWS when its native binary loads, else node:http.
 * With TLS the node adapter serves (`--http-adapter uws` is refused).
 */
export async function listenHttp(
  app: HttpApp,
  address: ListenAddress,
  choice: AdapterChoice = 'auto',
  tls?: ListenTls,
): Promise<HttpServer & { readonly adapter: 'uws' | 'node'; readonly tls?: TlsListener }> {
  if (tls !== undefined) {
    if (choice === 'uws') throw new Error('--http-adapter uws cannot serve TLS (no client-certificate enforcement, version pinning or h2 in uWS): use auto or node');
    const server = await listenTls(app, address, tls.material, tls.mutual, tls.hooks, INGEST_MAX_BODY_BYTES);
    return { adapter: 'node', address: server.address, close: (graceMs?: number) => server.close(graceMs), tls: server };
  }
  const adapter = choice === 'auto' ? (uwsNativeAvailable() ? 'uws' : 'node') : choice;
  if (choice === 'uws' && !uwsNativeAvailable()) {
    throw new Error('--http-adapter uws: uWebSockets.js has no native binary for this platform and Node version (use auto or node)');
  }
  // OTLP/gRPC shares the port through a `net` front (uWS has no HTTP/2).
  const server =
    adapter === 'uws' ? await listenUwsBehindFront(app, address, INGEST_MAX_BODY_BYTES) : await listenNode(app, address, otlpGrpcFront(app, INGEST_MAX_BODY_BYTES));
  return { adapter, address: server.address, close: (graceMs?: number) => server.close(graceMs) };
}
