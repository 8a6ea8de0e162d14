// uWS on the API port together with OTLP/gRPC (interface.md: `LogsService/Export` "is served on the
// same address"). uWS speaks only HTTP/1.1 and cannot take over a connection accepted elsewhere, so
// it listens on a unix socket in a private directory and the OTLP/gRPC front on the API address pipes
// every HTTP/1.1 connection to it; HTTP/2 connections stay with the front's HTTP/2 server.
import { mkdtemp, rm } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HttpApp } from './handler.js';
import { DEFAULT_CLOSE_GRACE_MS, type HttpServer } from './http-server.js';
import type { ListenAddress } from './listen-address.js';
import { listenNode } from './node-server.js';
import { otlpGrpcFront, type Http1Destination } from './otlp-grpc.js';
import { listenUws } from './uws-server.js';

export async function listenUwsBehindFront(app: HttpApp, address: ListenAddress, maxGrpcMessageBytes: number): Promise<HttpServer> {
  // mkdtemp creates the directory owner-only; the socket inside is owner-only too (uws-server.ts).
  const dir = await mkdtemp(join(tmpdir(), 'sigmad-uws-'));
  const path = join(dir, 'http.sock');
  let uws: HttpServer | undefined;
  try {
    uws = await listenUws(app, { kind: 'unix', path });
    const inner = uws;
    const front = await listenNode(app, address, otlpGrpcFront(app, maxGrpcMessageBytes, () => pipeTo(path)));
    return {
      address: front.address,
      async close(graceMs = DEFAULT_CLOSE_GRACE_MS) {
        // uWS drains and cuts its responses; the pipes close with its connections, and the front's
        // close waits for them.
        await Promise.all([inner.close(graceMs), front.close(graceMs)]);
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await uws?.close(0);
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

/**
 * Each connection piped both ways to the unix socket at `path`; either side closing closes the other,
 * so a client that goes away aborts its response in uWS at once. Shutdown is left to uWS (see close).
 */
function pipeTo(path: string): Http1Destination {
  return {
    take(client: Socket) {
      const upstream = connect(path);
      const cut = (): void => {
        client.destroy();
        upstream.destroy();
      };
      client.on('error', cut).once('close', cut);
      upstream.on('error', cut).once('close', cut);
      client.pipe(upstream);
      upstream.pipe(client);
    },
    closeIdleConnections: () => undefined,
    closeAllConnections: () => undefined,
  };
}
