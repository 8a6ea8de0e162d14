// Requests refused on their head (401, 403) or their announced size (413) on both adapters: the
// daemon answers at once and closes, instead of reading up to the route's 16 MiB limit (issue 18).
// The client here announces more than it sends and never ends its side.
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uwsNativeAvailable } from '../../http/listen.js';
import { ensureBuilt, FIXTURES, startDaemon, type RunningDaemon } from './harness.js';

const adapters = uwsNativeAvailable() ? (['uws', 'node'] as const) : (['node'] as const);
const KIB = 1024;

beforeAll(ensureBuilt, 180_000);

/** Sends the head and `sent` body bytes of a POST announcing `announced`; resolves with the status once the daemon closed. */
function refusedPost(port: number, token: string | undefined, announced: number, sent: number): Promise<{ status: number; closed: true }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer and close; got ${JSON.stringify(text.slice(0, 80))}`));
    }, 15_000);
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    // A reset after the answer (the unread rest of the body) is the close this test waits for.
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), closed: true });
    });
    const auth = token === undefined ? '' : `authorization: Bearer ${token}\r\n`;
    socket.write(`POST /api/v1/events HTTP/1.1\r\nhost: x\r\ncontent-type: application/x-ndjson\r\n${auth}content-length: ${announced}\r\n\r\n`);
    socket.write(Buffer.alloc(sent, 0x20));
  });
}

describe.each(adapters)('refused request bodies on the %s adapter', (adapter) => {
  let daemon: RunningDaemon;
  let port: number;
  beforeAll(async () => {
    daemon = await startDaemon(['--rules', join(FIXTURES, 'rules'), '--input', 'http', '--api-addr', '127.0.0.1:0', '--http-adapter', adapter], {
      env: { T_SHIP: 'ship-secret', T_DASH: 'dash-secret', SVC_API__AUTH__TOKENS: '[{name: shipper, token_env: T_SHIP, role: ingest}, {name: dashboard, token_env: T_DASH, role: reader}]' },
    });
    if (daemon.address.kind !== 'tcp') throw new Error('expected a TCP listener');
    port = daemon.address.port;
  });
  afterAll(async () => {
    daemon.kill();
    await daemon.exited;
  });

  it('answers 401 and 403 to a 10 MiB body it does not read, then closes', async () => {
    expect(await refusedPost(port, undefined, 10 * 1024 * KIB, 65 * KIB)).toEqual({ status: 401, closed: true });
    expect(await refusedPost(port, 'dash-secret', 10 * 1024 * KIB, 65 * KIB)).toEqual({ status: 403, closed: true });
  });

  it('answers 413 to a body announced over the limit, then closes', async () => {
    expect(await refusedPost(port, 'ship-secret', 17 * 1024 * KIB, 65 * KIB)).toEqual({ status: 413, closed: true });
  });

  it('keeps serving refused and accepted requests after those closes', async () => {
    expect((await daemon.request({ method: 'GET', url: '/api/v1/status' })).status).toBe(401);
    expect((await daemon.request({ method: 'POST', url: '/api/v1/events', body: '{"a":1}\n', headers: { authorization: 'Bearer ship-secret' } })).status).toBe(200);
  });
});
