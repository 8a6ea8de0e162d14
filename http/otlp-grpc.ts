// OTLP/gRPC `LogsService/Export` on the API port (daemon-semantics §17.2), h2c: a `net` front hands
// connections that open with the HTTP/2 preface to grpc-js and the others to the node:http server.
// Each call goes through the same app as `POST /v1/logs` (auth guard, start-up gate, decoding,
// commit), its HTTP answer mapped to a gRPC status, so both transports behave alike.
import { createServer as createHttpServer } from 'node:http';
import { createServer as createNetServer, type Socket } from 'node:net';
import { Metadata, Server, ServerCredentials, status as GrpcStatus, type ServerUnaryCall, type sendUnaryData, type ServiceError } from '@grpc/grpc-js';
import { LOGS_SERVICE_DEFINITION } from '../protocol/index.js';
import type { Chunk, HttpApp, Res } from './handler.js';
import type { NodeServerFactory } from './node-server.js';

const HTTP2_PREFACE = Buffer.from('PRI * HTTP/2.0\r\n');
/** Bytes that tell the preface from any HTTP/1.1 request line (no method starts with `PRI`). */
const SNIFF_BYTES = 3;

/** HTTP statuses of the `/v1/logs` answer → gRPC codes. */
function grpcCode(status: number): GrpcStatus {
  switch (status) {
    case 400:
      return GrpcStatus.INVALID_ARGUMENT;
    case 401:
      return GrpcStatus.UNAUTHENTICATED;
    case 403:
      return GrpcStatus.PERMISSION_DENIED;
    case 413:
      return GrpcStatus.RESOURCE_EXHAUSTED;
    case 503:
      return GrpcStatus.UNAVAILABLE;
    default:
      return GrpcStatus.INTERNAL;
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

function exportCall(app: HttpApp) {
  return (call: ServerUnaryCall<Buffer, Buffer>, callback: sendUnaryData<Buffer>): void => {
    const authorization = call.metadata.get('authorization')[0];
    const headers: Record<string, string> = { 'content-type': 'application/x-protobuf' };
    if (typeof authorization === 'string') headers['authorization'] = authorization;
    const res = new CapturedRes((status, body) => {
      if (status === 200) return callback(null, body);
      let details = `HTTP ${status}`;
      try {
        details = (JSON.parse(body.toString('utf8')) as { error?: string }).error ?? details;
      } catch {
        // A non-JSON answer keeps its status as the detail.
      }
      const error: Partial<ServiceError> = { code: grpcCode(status), details, metadata: new Metadata() };
      callback(error);
    });
    void app.handle({ method: 'POST', path: '/v1/logs', query: new URLSearchParams(), headers, body: call.request, transport: 'grpc' }, res).catch((error: unknown) => {
      if (!res.closed) callback({ code: GrpcStatus.INTERNAL, details: error instanceof Error ? error.message : String(error) });
    });
  };
}

/**
 * A node server factory whose listening server is a `net` front: HTTP/2 connections go to grpc-js
 * (OTLP `LogsService/Export`, messages up to `maxMessageBytes`), the rest to node:http.
 */
export function otlpGrpcFront(app: HttpApp, maxMessageBytes: number): NodeServerFactory {
  return (handler) => {
    const http = createHttpServer(handler);
    const grpc = new Server({ 'grpc.max_receive_message_length': maxMessageBytes });
    grpc.addService(LOGS_SERVICE_DEFINITION, { Export: exportCall(app) });
    const injector = grpc.createConnectionInjector(ServerCredentials.createInsecure());
    const sockets = new Set<Socket>();
    const front = createNetServer((socket) => {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
      // Peek without consuming: what is read is put back before the connection is handed on.
      const sniff = (): void => {
        const head = socket.read() as Buffer | null;
        if (head === null) return void socket.once('readable', sniff);
        socket.unshift(head);
        if (head.length < SNIFF_BYTES) return void socket.once('readable', sniff);
        if (head.subarray(0, SNIFF_BYTES).equals(HTTP2_PREFACE.subarray(0, SNIFF_BYTES))) injector.injectConnection(socket);
        else http.emit('connection', socket);
      };
      socket.once('readable', sniff);
    });
    return {
      server: front,
      closeIdleConnections: () => {
        http.closeIdleConnections();
        injector.drain(0);
      },
      closeAllConnections: () => {
        http.closeAllConnections();
        injector.destroy();
        grpc.forceShutdown();
        for (const s of sockets) s.destroy();
      },
    };
  };
}
