import { STATUS_CODES } from 'node:http';
import { createRequire } from 'node:module';
import { HeldHeadRes } from './held-head-res.js';
import type { HttpResponse, TemplatedApp, us_listen_socket } from 'uWebSockets.js';
import { announcedBody, BodyBuffer, EMPTY_BODY } from './body-buffer.js';
import type { Chunk, HttpApp, Res } from './handler.js';
import { DEFAULT_CLOSE_GRACE_MS, type HttpServer } from './http-server.js';
import type { ListenAddress } from './listen-address.js';
import { OpenResponses } from './open-responses.js';
import { bindOwnerOnly, prepareUnixSocketPath, removeUnixSocket, restrictUnixSocket } from './unix-socket.js';

type Uws = typeof import('uWebSockets.js');

/**
 * The uWebSockets.js adapter (the fast path). Loaded lazily so a process where the native binary
 * cannot load can still use the node:http adapter. uWS rules: onAborted always attached, request
 * data copied before anything async, raw query read first, writes corked, path parameters decoded
 * by the router, unix socket files unlinked by us.
 */
export async function listenUws(app: HttpApp, address: ListenAddress): Promise<HttpServer> {
  // require, not import(): the bundle is CommonJS run through vm.Script (cli/bundle-loader.ts), where import() has no loader.
  const uws = createRequire(import.meta.url)('uWebSockets.js') as Uws;
  const open = new OpenResponses<UwsRes>();
  const uApp = uws.App();
  uApp.any('/*', (res, req) => {
    const method = req.getMethod().toUpperCase();
    const path = req.getUrl();
    const rawQuery = req.getQuery() ?? '';
    const headers: Record<string, string> = {};
    req.forEach((k, v) => {
      const prev = headers[k];
      headers[k] = prev === undefined ? v : `${prev}, ${v}`;
    });
    const r = new UwsRes(res, open);
    const dispatch = (body: Uint8Array): void => {
      void app.handle({ method, path, query: new URLSearchParams(rawQuery), headers, body }, r);
    };
    const refuse = app.refuseEarly?.(method, path, headers);
    const limit = app.bodyLimit(method, path);
    const announced = announcedBody(headers, limit);
    if (refuse !== undefined) return refuseAndClose(r, refuse, announced.kind !== 'none');
    switch (announced.kind) {
      case 'none':
        return dispatch(EMPTY_BODY);
      case 'too_large':
        return refuseAndClose(r, (rr) => app.rejectOversizedBody(rr), true);
      case 'read': {
        const buffer = new BodyBuffer(limit, announced.length);
        res.onData((ab, isLast) => {
          if (r.closed) return;
          if (buffer.push(new Uint8Array(ab))) {
            if (isLast) dispatch(buffer.result());
            return;
          }
          r.header('connection', 'close');
          app.rejectOversizedBody(r);
        });
      }
    }
  });

  const bound = await bind(uws, uApp, address);
  return {
    address: bound.address,
    async close(graceMs = DEFAULT_CLOSE_GRACE_MS) {
      uws.us_listen_socket_close(bound.socket);
      await open.drain(graceMs, (r) => r.cut());
      closeApp(uApp);
      if (address.kind === 'unix') await removeUnixSocket(address.path);
    },
  };
}

/**
 * A request refused before its body is needed (401/403, or 413 on the announced size): answered at
 * once, closing the connection after the answer when a body was announced (never read to the limit).
 */
function refuseAndClose(r: UwsRes, answer: (res: Res) => void, hasBody: boolean): void {
  if (hasBody) r.header('connection', 'close');
  answer(r);
}

async function bind(
  uws: Uws,
  uApp: TemplatedApp,
  address: ListenAddress,
): Promise<{ socket: us_listen_socket; address: ListenAddress }> {
  if (address.kind === 'unix') {
    await prepareUnixSocketPath(address.path);
    const socket = await new Promise<us_listen_socket | false>((resolve) => bindOwnerOnly(() => uApp.listen_unix(resolve, address.path)));
    if (socket === false) throw new Error(`cannot listen on unix://${address.path}`);
    await restrictUnixSocket(address.path);
    return { socket, address };
  }
  const listen = uApp.listen as unknown as ListenWithOptions;
  const socket = await new Promise<us_listen_socket | false>((resolve) => listen.call(uApp, address.host, address.port, LIBUS_LISTEN_EXCLUSIVE_PORT, resolve));
  if (socket === false) throw new Error(`cannot listen on ${address.host}:${address.port}`);
  return { socket, address: { kind: 'tcp', host: address.host, port: uws.us_socket_local_port(socket) } };
}

/**
 * uWS binds TCP with SO_REUSEPORT unless told otherwise: a second daemon on the same port would then
 * start without error and take a share of the connections. The native `listen(host, port, options,
 * cb)` form exists but is missing from the type declarations, as is the constant's value export.
 */
const LIBUS_LISTEN_EXCLUSIVE_PORT = 1;
type ListenWithOptions = (host: string, port: number, options: number, cb: (socket: us_listen_socket | false) => void) => TemplatedApp;

/** `close()` exists on the native app of this build but not in its type declarations. */
function closeApp(uApp: TemplatedApp): void {
  const closable = uApp as TemplatedApp & { close?: () => void };
  closable.close?.();
}

/**
 * The largest piece of a chunked write: a string's UTF-16 units (at most 3 UTF-8 bytes each) or bytes.
 * This uWS build sends a chunk's size line twice when a write too large for its 16 KB cork buffer
 * meets a socket that takes the size line but none of the data (seen on unix sockets, where the front
 * reaches it), corrupting the chunked stream; pieces that fit the cork buffer never take that path.
 */
const PIECE_UNITS = 4_096;
const PIECE_BYTES = 12_288;

function writeInPieces(res: HttpResponse, chunk: Chunk): boolean {
  if (typeof chunk === 'string') {
    if (chunk.length <= PIECE_UNITS) return res.write(chunk);
    let ok = true;
    for (let at = 0; at < chunk.length; ) {
      let end = Math.min(at + PIECE_UNITS, chunk.length);
      // A surrogate pair stays in one piece: uWS encodes each piece to UTF-8 on its own.
      if (end < chunk.length && isHighSurrogate(chunk.charCodeAt(end - 1))) end -= 1;
      ok = res.write(chunk.slice(at, end)) && ok;
      at = end;
    }
    return ok;
  }
  if (chunk.byteLength <= PIECE_BYTES) return res.write(chunk);
  let ok = true;
  for (let at = 0; at < chunk.byteLength; at += PIECE_BYTES) ok = res.write(chunk.subarray(at, at + PIECE_BYTES)) && ok;
  return ok;
}

function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

/** How often a streaming response re-arms uWS's 10 s idle timer (whose resolution is about 4 s). */
const STREAM_IDLE_RENEW_MS = 2_000;

class UwsRes extends HeldHeadRes {
  private started = false;
  private keepAlive: NodeJS.Timeout | undefined;

  constructor(
    private readonly res: HttpResponse,
    private readonly open: OpenResponses<UwsRes>,
  ) {
    super();
    open.add(this);
    res.onAborted(() => {
      this.stopKeepAlive();
      open.delete(this);
      this.aborts.fire();
    });
  }

  write(chunk: Chunk): boolean {
    if (this.closed) return false;
    this.keepAlive ??= setInterval(() => this.renewIdleTimer(), STREAM_IDLE_RENEW_MS);
    let ok = false;
    this.res.cork(() => {
      this.head();
      ok = writeInPieces(this.res, chunk);
    });
    return ok;
  }
  end(body?: Chunk): void {
    if (this.closed) return;
    this.ended = true;
    this.stopKeepAlive();
    this.open.delete(this);
    const closeConnection = this.headers.get('connection') === 'close';
    this.headers.delete('connection');
    this.res.cork(() => {
      this.head();
      this.res.end(body ?? '', closeConnection);
    });
  }
  onWritable(cb: () => void): void {
    this.res.onWritable(() => {
      // While an onWritable handler is set, this uWS build leaves its own buffer to the handler's
      // writes; with nothing left to write it would hold the buffered rest until the next write. An
      // uncork writes that buffer out, so the callback runs corked.
      this.res.cork(() => {
        if (!this.closed) cb();
      });
      return true;
    });
  }
  /** Force the connection closed (shutdown); uWS then runs the abort handlers. */
  cut(): void {
    if (!this.closed) this.res.close();
  }
  /**
   * uWS cuts a connection after 10 s without a writable event (HTTP_IDLE_TIMEOUT_S), and a client that
   * reads slowly behind full socket buffers looks idle: the cut lands mid-line and the summary is lost.
   * pause() then resume() re-arms that timer, so a streaming response lives as long as its session.
   */
  private renewIdleTimer(): void {
    if (this.closed) return this.stopKeepAlive();
    this.res.pause();
    this.res.resume();
  }
  private stopKeepAlive(): void {
    clearInterval(this.keepAlive);
    this.keepAlive = undefined;
  }
  private head(): void {
    if (this.started) return;
    this.started = true;
    this.res.writeStatus(`${this.code} ${STATUS_CODES[this.code] ?? ''}`);
    for (const [k, v] of this.headers) this.res.writeHeader(k, v);
  }
}
