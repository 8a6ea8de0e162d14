import { createServer, STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Server } from 'node:net';
import type { Duplex } from 'node:stream';
import { apiError } from '../protocol/index.js';
import { AbortCallbacks } from './abort-callbacks.js';
import { announcedBody, BodyBuffer, EMPTY_BODY } from './body-buffer.js';
import type { Chunk, HttpApp, Res } from './handler.js';
import { DEFAULT_CLOSE_GRACE_MS, type HttpServer } from './http-server.js';
import type { ListenAddress } from './listen-address.js';
import { OpenResponses } from './open-responses.js';
import { bindOwnerOnly, prepareUnixSocketPath, removeUnixSocket, restrictUnixSocket } from './unix-socket.js';

/** A node server serving `handler`, with the connection controls shutdown needs. */
interface NodeServer {
  readonly server: Server;
  closeIdleConnections(): void;
  closeAllConnections(): void;
}

export type NodeServerFactory = (handler: (req: IncomingMessage, res: ServerResponse) => void) => NodeServer;

/** The HTTP/1.1 server of the node adapter, listening or fed connections by a front. */
export function plainHttpServer(handler: (req: IncomingMessage, res: ServerResponse) => void): HttpPlainServer {
  // A client that trickles its headers (slowloris) is cut after HEADERS_TIMEOUT_MS, as uWS cuts it
  // after its 10 s idle timeout; node's defaults (60 s, checked every 30 s) held it for 90 s.
  const server = createServer({ headersTimeout: HEADERS_TIMEOUT_MS, connectionsCheckingInterval: 1_000 }, handler);
  server.on('clientError', rejectMalformed);
  return server;
}

type HttpPlainServer = ReturnType<typeof createServer>;

/**
 * The node:http adapter: `factory` builds the listening server, the OTLP/gRPC front in plaintext
 * (otlp-grpc.ts) or the HTTPS/HTTP2 server (tls-server.ts).
 */
export async function listenNode(app: HttpApp, address: ListenAddress, factory: NodeServerFactory): Promise<HttpServer> {
  const open = new OpenResponses<NodeRes>();
  const node = factory((req, res) => serve(app, open, req, res));
  const server = node.server;
  if (address.kind === 'unix') await prepareUnixSocketPath(address.path);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    const done = () => {
      server.off('error', reject);
      resolve();
    };
    if (address.kind === 'unix') bindOwnerOnly(() => server.listen(address.path, done));
    else server.listen(address.port, address.host, done);
  });
  if (address.kind === 'unix') await restrictUnixSocket(address.path);
  const info = server.address();
  const bound: ListenAddress =
    address.kind === 'tcp' && info !== null && typeof info === 'object' ? { kind: 'tcp', host: address.host, port: info.port } : address;
  return {
    address: bound,
    async close(graceMs = DEFAULT_CLOSE_GRACE_MS) {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      node.closeIdleConnections();
      await open.drain(graceMs, (r) => r.cut());
      node.closeAllConnections();
      await closed;
      if (address.kind === 'unix') await removeUnixSocket(address.path);
    },
  };
}

const STREAMED_BODY = { kind: 'read', length: 0 } as const;

/** How long a client may take to send a request's headers (and, at a front, its first bytes). */
export const HEADERS_TIMEOUT_MS = 10_000;

/** A request the parser refused (or whose headers came too slowly) gets a JSON error, then the connection closes. */
function rejectMalformed(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const code =
    error.code === 'HPE_HEADER_OVERFLOW' ? 'request_headers_too_large' : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 'request_timeout' : 'request_malformed';
  const { status, body } = apiError(code);
  const text = JSON.stringify(body);
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`,
  );
}

function serve(app: HttpApp, open: OpenResponses<NodeRes>, req: IncomingMessage, res: ServerResponse): void {
  const method = (req.method ?? 'GET').toUpperCase();
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  const rawQuery = q === -1 ? '' : url.slice(q + 1);
  const headers: Record<string, string> = {};
  // HTTP/2 pseudo-headers (`:path`, ...) are not headers of the request.
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined && !k.startsWith(':')) headers[k] = Array.isArray(v) ? v.join(', ') : v;
  const r = new NodeRes(res, open);
  const dispatch = (body: Uint8Array): void => {
    void app.handle({ method, path, query: new URLSearchParams(rawQuery), headers, body }, r);
  };
  const refuse = app.refuseEarly?.(method, path, headers);
  if (refuse !== undefined) return refuseAndClose(req, r, refuse);
  const limit = app.bodyLimit(method, path);
  // HTTP/2 has no Transfer-Encoding: a body without Content-Length is just the rest of the stream.
  const announced = req.httpVersionMajor === 2 && headers['content-length'] === undefined ? STREAMED_BODY : announcedBody(headers, limit);
  switch (announced.kind) {
    case 'none':
      req.resume();
      return dispatch(EMPTY_BODY);
    case 'too_large':
      return refuseAndClose(req, r, (res) => app.rejectOversizedBody(res));
    case 'read': {
      const buffer = new BodyBuffer(limit, announced.length);
      const onData = (chunk: Buffer): void => {
        if (buffer.push(chunk)) return;
        req.off('data', onData);
        req.off('end', onEnd);
        refuseAndClose(req, r, (res) => app.rejectOversizedBody(res));
      };
      const onEnd = (): void => dispatch(buffer.result());
      req.on('data', onData);
      req.on('end', onEnd);
    }
  }
}

/**
 * A request refused before its body is needed (401/403, or 413 on the announced size): answered at
 * once, and when body bytes are still to come the connection closes after the answer, discarding what
 * arrives meanwhile; the body is never read to the route limit.
 */
function refuseAndClose(req: IncomingMessage, r: NodeRes, answer: (res: Res) => void): void {
  if (!req.complete) {
    req.resume();
    r.closeAfterAnswer(req.httpVersionMajor);
  }
  answer(r);
}

class NodeRes implements Res {
  private started = false;
  private readonly aborts = new AbortCallbacks();

  constructor(
    private readonly res: ServerResponse,
    private readonly open: OpenResponses<NodeRes>,
  ) {
    open.add(this);
    res.on('close', () => {
      open.delete(this);
      if (!res.writableFinished) this.aborts.fire();
    });
  }

  get closed(): boolean {
    return this.res.writableEnded || this.aborts.aborted;
  }
  get aborted(): boolean {
    return this.aborts.aborted;
  }
  status(code: number): Res {
    if (!this.started) this.res.statusCode = code;
    return this;
  }
  header(name: string, value: string): Res {
    if (!this.started) this.res.setHeader(name, value);
    return this;
  }
  write(chunk: Chunk): boolean {
    if (this.closed) return false;
    this.started = true;
    return this.res.write(chunk);
  }
  end(body?: Chunk): void {
    if (this.closed) return;
    this.started = true;
    this.open.delete(this);
    if (body === undefined) this.res.end();
    else this.res.end(body);
  }
  onWritable(cb: () => void): void {
    this.res.once('drain', () => {
      if (!this.closed) cb();
    });
  }
  onAbort(cb: () => void): void {
    this.aborts.add(cb);
  }
  /** Close the connection (HTTP/1.1) or the stream (HTTP/2) once the answer is sent. */
  closeAfterAnswer(httpVersionMajor: number): void {
    // HTTP/1: node ends the connection once the answer is out. HTTP/2 forbids a `connection` header;
    // there the unread rest of the stream is reset instead.
    if (httpVersionMajor === 1) this.res.setHeader('connection', 'close');
    else this.res.once('finish', () => this.res.destroy());
  }
  /** Destroy the connection (shutdown), running the abort handlers before returning. */
  cut(): void {
    if (this.closed) return;
    this.aborts.fire();
    this.res.destroy();
  }
}
