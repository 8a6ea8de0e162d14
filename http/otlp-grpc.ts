// OTLP/gRPC `LogsService/Export` on the API port (daemon-semantics §17.2), over HTTP/2: h2c behind a
// `net` front that hands connections opening with the HTTP/2 preface to an HTTP/2 server and the
// others to node:http or, piped, to uWS (uws-front.ts), and h2 on the TLS listener (ALPN). The call is unary gRPC framing over one
// HTTP/2 stream, served per request so REST and gRPC share one HTTP/2 server. Each call goes through
// the same app as `POST /v1/logs` (auth guard on the `authorization` metadata, start-up gate,
// decoding, commit), its HTTP answer mapped to a gRPC status, so both transports behave alike.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer as createHttp2Server, type Http2Server, type Http2ServerRequest, type Http2ServerResponse, type Http2Session } from 'node:http2';
import { createServer as createNetServer, type Socket } from 'node:net';
import { gunzip } from 'node:zlib';
import type { Chunk, HttpApp, Res } from './handler.js';
import { HEADERS_TIMEOUT_MS, plainHttpServer, type NodeServerFactory } from './node-server.js';
import { governSendBuffer } from './send-buffer.js';

const HTTP2_PREFACE = Buffer.from('PRI * HTTP/2.0\r\n');
/** Bytes that tell the preface from any HTTP/1.1 request line (no method starts with `PRI`). */
const SNIFF_BYTES = 3;
const OTLP_EXPORT_PATH = '/opentelemetry.proto.collector.logs.v1.LogsService/Export';
/** gRPC length-prefixed message header: compressed flag (1 byte) + big-endian length (4 bytes). */
const FRAME_HEADER = 5;

/** gRPC status codes used here (grpc/doc/statuscodes.md). */
const GRPC = { OK: 0, INVALID_ARGUMENT: 3, PERMISSION_DENIED: 7, RESOURCE_EXHAUSTED: 8, UNIMPLEMENTED: 12, INTERNAL: 13, UNAVAILABLE: 14, UNAUTHENTICATED: 16 } as const;

/** HTTP statuses of the `/v1/logs` answer → gRPC codes. */
function grpcCode(status: number): number {
  switch (status) {
    case 400:
      return GRPC.INVALID_ARGUMENT;
    case 401:
      return GRPC.UNAUTHENTICATED;
    case 403:
      return GRPC.PERMISSION_DENIED;
    case 413:
      return GRPC.RESOURCE_EXHAUSTED;
    case 503:
      return GRPC.UNAVAILABLE;
    default:
      return GRPC.INTERNAL;
  }
}

/** A `Res` that collects one answer of the app for a gRPC call. */
class CapturedRes implements Res {
  private code = 200;
  private readonly chunks: Uint8Array[] = [];
  private ended = false;
  constructor(private readonly done: (status: number, body: Buffer) => void) {}
  get closed(): boolean {
    return this.ended;
  }
  readonly aborted = false;
  status(code: number): Res {
    this.code = code;
    return this;
  }
  header(): Res {
    return this;
  }
  write(chunk: Chunk): boolean {
    this.chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    return true;
  }
  end(body?: Chunk): void {
    if (this.ended) return;
    if (body !== undefined) this.write(body);
    this.ended = true;
    this.done(this.code, Buffer.concat(this.chunks));
  }
  onWritable(): void {}
  onAbort(): void {}
}

interface CallOutcome {
  readonly code: number;
  readonly details: string;
  readonly message?: Buffer;
}

/** One Export request message through the `/v1/logs` route of `app`. */
function exportThroughApp(app: HttpApp, message: Buffer, authorization: string | undefined): Promise<CallOutcome> {
  return new Promise((resolve) => {
    const headers: Record<string, string> = { 'content-type': 'application/x-protobuf' };
    if (authorization !== undefined) headers['authorization'] = authorization;
    const res = new CapturedRes((status, body) => {
      if (status === 200) return resolve({ code: GRPC.OK, details: '', message: body });
      let details = `HTTP ${status}`;
      try {
        details = (JSON.parse(body.toString('utf8')) as { error?: string }).error ?? details;
      } catch {
        // A non-JSON answer keeps its status as the detail.
      }
      resolve({ code: grpcCode(status), details });
    });
    app.handle({ method: 'POST', path: '/v1/logs', query: new URLSearchParams(), headers, body: message, transport: 'grpc' }, res).catch((error: unknown) => {
      if (!res.closed) resolve({ code: GRPC.INTERNAL, details: error instanceof Error ? error.message : String(error) });
    });
  });
}

/** Reads the call's one length-prefixed message; refuses (without reading on) one over `max` bytes. */
async function readMessage(req: Http2ServerRequest, max: number): Promise<Buffer | CallOutcome> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= FRAME_HEADER) {
      const head = chunks.length === 1 ? chunk : Buffer.concat(chunks);
      const length = head.readUInt32BE(1);
      if (length > max) return { code: GRPC.RESOURCE_EXHAUSTED, details: `received message larger than max (${length} vs. ${max})` };
    }
  }
  const frame = Buffer.concat(chunks);
  if (frame.length < FRAME_HEADER || frame.length !== FRAME_HEADER + frame.readUInt32BE(1)) return { code: GRPC.INTERNAL, details: 'unary call without exactly one complete message' };
  const message = frame.subarray(FRAME_HEADER);
  if (frame[0] === 0) return message;
  const encoding = req.headers['grpc-encoding'];
  if (encoding !== 'gzip') return { code: GRPC.UNIMPLEMENTED, details: `unsupported message encoding: ${String(encoding)}` };
  return new Promise((resolve) => {
    gunzip(message, { maxOutputLength: max }, (error, inflated) => {
      if (error === null) resolve(inflated);
      else if (error instanceof RangeError) resolve({ code: GRPC.RESOURCE_EXHAUSTED, details: `decompressed message larger than max (${max})` });
      else resolve({ code: GRPC.INTERNAL, details: `decompression error: ${error.message}` });
    });
  });
}

/** Serves one unary `LogsService/Export` call: headers, the answer message when OK, the status as trailers. */
async function serveExport(app: HttpApp, req: Http2ServerRequest, res: Http2ServerResponse, maxMessageBytes: number): Promise<void> {
  const read = await readMessage(req, maxMessageBytes);
  const authorization = req.headers['authorization'];
  const outcome = Buffer.isBuffer(read) ? await exportThroughApp(app, read, typeof authorization === 'string' ? authorization : undefined) : read;
  if (res.stream.destroyed) return;
  res.writeHead(200, { 'content-type': 'application/grpc+proto' });
  res.addTrailers({ 'grpc-status': String(outcome.code), 'grpc-message': grpcMessage(outcome.details) });
  if (outcome.message === undefined) return void res.end();
  const header = Buffer.alloc(FRAME_HEADER);
  header.writeUInt32BE(outcome.message.length, 1);
  res.end(Buffer.concat([header, outcome.message]));
}

/** `grpc-message` encoding: bytes outside printable ASCII, and `%`, percent-encoded (gRPC over HTTP/2). */
function grpcMessage(details: string): string {
  let out = '';
  for (const byte of Buffer.from(details, 'utf8')) out += byte >= 0x20 && byte <= 0x7e && byte !== 0x25 ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  return out;
}

type CompatHandler = (req: Http2ServerRequest, res: Http2ServerResponse) => void;

/**
 * An HTTP/2 request handler that serves OTLP gRPC Export calls and hands every other request to the
 * REST `handler` (the node adapter reads the compatibility objects like HTTP/1.1 ones).
 */
export function withOtlpGrpc(app: HttpApp, maxMessageBytes: number, handler: (req: IncomingMessage, res: ServerResponse) => void): CompatHandler {
  const rest = handler as unknown as CompatHandler;
  return (req, res) => {
    const type = req.headers['content-type'];
    if (typeof type === 'string' && type.startsWith('application/grpc')) {
      if (req.method === 'POST' && req.url === OTLP_EXPORT_PATH) void serveExport(app, req, res, maxMessageBytes).catch(() => res.stream.close());
      else {
        res.writeHead(200, { 'content-type': 'application/grpc+proto' });
        res.addTrailers({ 'grpc-status': String(GRPC.UNIMPLEMENTED), 'grpc-message': grpcMessage(`unknown method ${req.url}`) });
        res.end();
      }
      return;
    }
    rest(req, res);
  };
}

/** Where a front sends the connections that do not open with the HTTP/2 preface. */
export interface Http1Destination {
  take(socket: Socket): void;
  closeIdleConnections(): void;
  closeAllConnections(): void;
}

/** HTTP/1.1 served by the node adapter itself. */
export function nodeHttp1(handler: (req: IncomingMessage, res: ServerResponse) => void): Http1Destination {
  const http = plainHttpServer(handler);
  // node:http tracks its connections (headers timeout, closing idle ones) from its 'listening' event;
  // fed by a front it never listens itself.
  http.emit('listening');
  return {
    take: (socket) => http.emit('connection', socket),
    closeIdleConnections: () => http.closeIdleConnections(),
    closeAllConnections: () => {
      http.closeAllConnections();
      // Stops the connection checks; the server itself never listened, hence the ignored error.
      http.close(() => undefined);
    },
  };
}

/**
 * A node server factory whose listening server is a `net` front: HTTP/2 (h2c) connections go to an
 * HTTP/2 server (OTLP `LogsService/Export`, messages up to `maxMessageBytes`, and the REST routes),
 * the rest to `http1` (node:http by default; uws-front.ts pipes them to uWS). A connection that sends
 * nothing for HEADERS_TIMEOUT_MS is closed, as a trickling one is past the front.
 */
export function otlpGrpcFront(
  app: HttpApp,
  maxMessageBytes: number,
  http1: (handler: (req: IncomingMessage, res: ServerResponse) => void) => Http1Destination = nodeHttp1,
): NodeServerFactory {
  return (handler) => {
    const destination = http1(handler);
    const sessions = new Set<Http2Session>();
    // Made for the first h2c connection: node's http2 (and tls with it) loads then, not on the way to ready (cli/bundle-loader.ts).
    let h2c: Http2Server | undefined;
    const http2 = (): Http2Server => {
      if (h2c !== undefined) return h2c;
      h2c = createHttp2Server(withOtlpGrpc(app, maxMessageBytes, handler));
      h2c.on('session', (session: Http2Session) => {
        sessions.add(session);
        session.once('close', () => sessions.delete(session));
      });
      return h2c;
    };
    /** Connections still being sniffed: once handed on, their server or pipe owns them. */
    const sniffing = new Set<Socket>();
    const front = createNetServer({ noDelay: true }, (socket) => {
      sniffing.add(socket);
      socket.once('close', () => sniffing.delete(socket));
      const silent = (): void => void socket.destroy();
      socket.setTimeout(HEADERS_TIMEOUT_MS, silent);
      // A client that closes before sending SNIFF_BYTES sent no request either protocol could answer.
      const ended = (): void => void socket.destroy();
      socket.once('end', ended);
      // Peek: what is read is put back before the connection is handed on. Fewer bytes are kept here,
      // not put back: at the end of the stream, bytes put back would make it readable again at once.
      let partial: Buffer | undefined;
      const sniff = (): void => {
        const chunk = socket.read() as Buffer | null;
        if (chunk === null) return void socket.once('readable', sniff);
        const head = partial === undefined ? chunk : Buffer.concat([partial, chunk]);
        if (head.length < SNIFF_BYTES) {
          partial = head;
          return void socket.once('readable', sniff);
        }
        socket.unshift(head);
        socket.off('end', ended);
        sniffing.delete(socket);
        // The owner's own timeouts (node:http's keep-alive one) must not reach this handler.
        socket.setTimeout(0);
        socket.off('timeout', silent);
        if (head.subarray(0, SNIFF_BYTES).equals(HTTP2_PREFACE.subarray(0, SNIFF_BYTES))) http2().emit('connection', socket);
        else {
          // HTTP/2 writes bypass the socket's JS side, so no 'drain' would ever grow its buffer: only HTTP/1.1 is governed.
          governSendBuffer(socket);
          destination.take(socket);
        }
      };
      socket.once('readable', sniff);
    });
    return {
      server: front,
      closeIdleConnections: () => {
        destination.closeIdleConnections();
        for (const s of sessions) s.close();
        for (const s of sniffing) s.destroy();
      },
      closeAllConnections: () => {
        destination.closeAllConnections();
        for (const s of sessions) s.destroy();
      },
    };
  };
}
