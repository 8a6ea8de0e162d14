import { createSecureServer } from 'node:http2';
import type { TLSSocket } from 'node:tls';
import type { HttpApp } from './handler.js';
import type { HttpServer } from './http-server.js';
import type { ListenAddress } from './listen-address.js';
import { listenNode } from './node-server.js';
import { withOtlpGrpc } from './otlp-grpc.js';
import { governSendBuffer } from './send-buffer.js';
import type { TlsMaterial } from './tls-material.js';

export interface TlsHooks {
  /** +1 after a successful handshake, −1 when that connection closes. */
  readonly onConnections: (delta: number) => void;
  /** A failed handshake (logged; the listener keeps accepting). */
  readonly onHandshakeError: (error: Error) => void;
}

export interface TlsListener extends HttpServer {
  /** New handshakes use `material`; open connections keep theirs. */
  swap(material: TlsMaterial): void;
}

/**
 * TLS on the node adapter: an HTTP/2 secure server that also speaks HTTP/1.1 (ALPN `h2`, then
 * `http/1.1`), with client certificates required when a client CA is given, and OTLP/gRPC
 * `LogsService/Export` on h2 (otlp-grpc.ts). uWS is not used for
 * TLS: it cannot enforce client certificates, pin the protocol version or offer h2.
 */
export async function listenTls(app: HttpApp, address: ListenAddress, material: TlsMaterial, mutual: boolean, hooks: TlsHooks, maxGrpcMessageBytes: number): Promise<TlsListener> {
  let swap: (m: TlsMaterial) => void = () => undefined;
  const server = await listenNode(app, address, (handler) => {
    const sockets = new Set<TLSSocket>();
    const h2 = createSecureServer(
      { ...material.context, allowHTTP1: true, ALPNProtocols: ['h2', 'http/1.1'], requestCert: mutual, rejectUnauthorized: mutual },
      // OTLP gRPC calls arrive as h2 streams; the rest through the HTTP/2 compatibility objects, which
      // carry the request/response surface the adapter uses.
      withOtlpGrpc(app, maxGrpcMessageBytes, handler),
    );
    h2.on('secureConnection', (socket: TLSSocket) => {
      // As in the plaintext front, HTTP/2 (ALPN h2) is left to the kernel's sizing.
      if (socket.alpnProtocol !== 'h2') governSendBuffer(socket);
      sockets.add(socket);
      hooks.onConnections(1);
      socket.once('close', () => {
        sockets.delete(socket);
        hooks.onConnections(-1);
      });
    });
    h2.on('tlsClientError', (error: Error) => hooks.onHandshakeError(error));
    swap = (m) => h2.setSecureContext(m.context);
    return {
      server: h2,
      closeIdleConnections: () => undefined,
      closeAllConnections: () => {
        for (const s of sockets) s.destroy();
      },
    };
  });
  return { address: server.address, close: (graceMs?: number) => server.close(graceMs), swap: (m) => swap(m) };
}
