// A detection-tail client that stops reading for longer than uWS's 10 s idle timeout, then reads on:
// on both adapters it gets whole lines only, every line the session kept, and the summary last.
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeDaemonFacade, FakeLiveStream } from './fake-facade.js';
import { LISTENERS } from './listeners.js';
import type { HttpServer } from '../../http/http-server.js';
import { createHttpApp } from '../../http/http-app.js';
import { ROUTES } from '../../http/routes.js';
import type { TailRequest } from '../../protocol/live-session.js';
import { waitFor } from '../e2e/harness.js';

// uWS cuts a connection after 10 s without progress; the stall outlasts that.
const STALL_MS = { uws: 12_000, node: 1_000 };
const ADAPTERS = LISTENERS.map(([name, listen]) => [name, listen, STALL_MS[name]] as const);

/** The body of a chunked HTTP/1.1 response. */
function dechunk(raw: string): string {
  let rest = raw.slice(raw.indexOf('\r\n\r\n') + 4);
  let body = '';
  for (;;) {
    const eol = rest.indexOf('\r\n');
    const size = Number.parseInt(rest.slice(0, eol), 16);
    if (!(size > 0)) return body;
    body += rest.slice(eol + 2, eol + 2 + size);
    rest = rest.slice(eol + 2 + size + 2);
  }
}

let server: HttpServer | undefined;
let socket: Socket | undefined;
afterEach(async () => {
  socket?.destroy();
  await server?.close(100);
});

describe.each(ADAPTERS)('slow tail client on the %s adapter', (_name, listen, stallMs) => {
  it('gets whole lines, the kept ones in order, and the summary with the drop count', async () => {
    const tail = new FakeLiveStream<TailRequest>(1, undefined, 32);
    const facade = Object.assign(new FakeDaemonFacade(), { tail });
    server = await listen(createHttpApp(ROUTES, facade), { kind: 'tcp', host: '127.0.0.1', port: 0 });
    const port = server.address.kind === 'tcp' ? server.address.port : 0;
    const client = connect(port, '127.0.0.1');
    socket = client;
    client.setEncoding('latin1');
    client.pause();
    client.write('GET /api/v1/detections/stream HTTP/1.1\r\nHost: t\r\n\r\n');
    const session = await waitFor(() => tail.sessions[0], 10_000, 'the tail session');
    const payload = 'x'.repeat(1024);
    let kept = 0;
    let dropped = 0;
    // Synchronous pushes: the client does not read, so the transport backs up and the buffer fills.
    for (let i = 0; dropped < 100; i++) {
      if (session.sink.push(JSON.stringify({ i, payload }))) kept += 1;
      else dropped += 1;
    }
    await new Promise((r) => setTimeout(r, stallMs));
    session.sink.end(JSON.stringify({ svc_tail_summary: { streamed: kept, dropped } }));
    let raw = '';
    client.on('data', (chunk: string) => (raw += chunk));
    let closed = false;
    const ended = new Promise((r) => client.once('close', r)).then(() => (closed = true));
    client.resume();
    // A connection the server cut ends the wait too, and fails below.
    await waitFor(() => (closed || raw.endsWith('0\r\n\r\n') ? true : undefined), 30_000, 'the end of the response');
    client.end();
    await ended;
    const lines = dechunk(raw).split('\n');
    expect(lines.pop()).toBe('');
    expect(JSON.parse(lines.pop() ?? '')).toEqual({ svc_tail_summary: { streamed: kept, dropped: 100 } });
    expect(lines.map((l) => (JSON.parse(l) as { i: number }).i)).toEqual([...Array(kept).keys()]);
  }, 60_000);
});
