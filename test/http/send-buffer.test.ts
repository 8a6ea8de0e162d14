// The governed kernel send buffer (issue 16): the growth rule, then real TCP connections on this machine's
// kernel, plain and over TLS: one whose client reads nothing, one whose client reads everything; and a unix
// socket left alone.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect, createServer as createTlsServer } from 'node:tls';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { governSendBuffer, INITIAL_SEND_BUFFER, MAX_SEND_BUFFER, sendBufferFor, sendBufferOf, sendBufferSizing } from '../../http/send-buffer.js';
import { makeCa, makeLeaf } from '../e2e/certificates.js';

describe('sendBufferFor', () => {
  it('grows by doubling, never past an eighth of what the kernel took nor past the maximum, and reaches it', () => {
    fc.assert(
      fc.property(fc.nat({ max: 2 ** 40 }), fc.nat({ max: 2 ** 40 }), (a, b) => {
        const [lo, hi] = a <= b ? [a, b] : [b, a];
        const size = sendBufferFor(lo);
        // A power-of-two multiple of the initial size, within bounds.
        expect(Number.isInteger(Math.log2(size / INITIAL_SEND_BUFFER))).toBe(true);
        expect(size).toBeGreaterThanOrEqual(INITIAL_SEND_BUFFER);
        expect(size).toBeLessThanOrEqual(MAX_SEND_BUFFER);
        // Monotone in what was taken.
        expect(sendBufferFor(hi)).toBeGreaterThanOrEqual(size);
        // Grown only on evidence: the kernel's buffer (twice the size asked) is at most a quarter of what it took.
        if (size > INITIAL_SEND_BUFFER) expect(2 * size).toBeLessThanOrEqual(lo / 4);
        // And as soon as there is evidence: the next size would have needed more than was taken.
        if (size < MAX_SEND_BUFFER) expect(4 * size).toBeGreaterThan(lo / 4);
      }),
    );
    // A client that reads nothing holds at most the kernel's 2 × 64 KB and its own receive buffer (128 KB).
    expect(sendBufferFor(2 * INITIAL_SEND_BUFFER + 128 * 1024)).toBe(INITIAL_SEND_BUFFER);
    expect(sendBufferFor(1e12)).toBe(MAX_SEND_BUFFER);
  });
});

describe('governSendBuffer on real sockets', () => {
  let server: Server | undefined;
  const clients: Socket[] = [];
  const dirs: string[] = [];
  afterEach(async () => {
    for (const c of clients.splice(0)) c.destroy();
    await new Promise<void>((resolve) => (server === undefined ? resolve() : server.close(() => resolve())));
    server = undefined;
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  /**
   * A server on 127.0.0.1 that governs each connection as the daemon does (plain: as accepted, as the front
   * does; TLS: once the handshake is done, as tls-server.ts does) and writes `bytes` to it in 64 KB writes
   * as fast as the socket takes them; and a client connected to it.
   */
  async function connection(bytes: number, transport: 'tcp' | 'tls'): Promise<{ client: Socket; accepted: Promise<Socket> }> {
    let accept: (s: Socket) => void = () => undefined;
    const accepted = new Promise<Socket>((resolve) => (accept = resolve));
    const chunk = Buffer.alloc(64 * 1024, 0x78);
    const serve = (socket: Socket): void => {
      socket.on('error', () => undefined);
      expect(governSendBuffer(socket)).toBe(true);
      let sent = 0;
      const pump = (): void => {
        while (sent < bytes) {
          sent += chunk.length;
          if (!socket.write(chunk)) return void socket.once('drain', pump);
        }
        socket.end();
      };
      pump();
      accept(socket);
    };
    let pem: { cert: string; key: string } | undefined;
    if (transport === 'tls') {
      const dir = mkdtempSync(join(tmpdir(), 'sigmad-sndbuf-tls-'));
      dirs.push(dir);
      const ca = makeCa(dir, 'ca');
      pem = makeLeaf(dir, ca, 'server', 1);
    }
    const listening = pem === undefined ? createServer(serve) : createTlsServer({ cert: readFileSync(pem.cert), key: readFileSync(pem.key) }, serve);
    server = listening;
    await new Promise<void>((resolve) => listening.listen(0, '127.0.0.1', resolve));
    const address = listening.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    const client = transport === 'tls' ? tlsConnect({ port, host: '127.0.0.1', rejectUnauthorized: false }) : connect(port, '127.0.0.1');
    client.on('error', () => undefined);
    clients.push(client);
    return { client, accepted };
  }

  it('is available on this machine (Linux, koffi installed)', () => {
    expect(sendBufferSizing()).toEqual({ sizing: 'governed' });
  });

  it.each(['tcp', 'tls'] as const)('%s: a client that reads nothing gets the initial buffer and no more: the kernel takes under 1 MB, not 4 MB', async (transport) => {
    const { client, accepted } = await connection(16 * 1024 * 1024, transport);
    const socket = await accepted;
    client.pause();
    // Until the kernel's buffers are full: what was handed to it stops moving.
    let taken = -1;
    for (let settled = 0; settled < 5; ) {
      await new Promise((r) => setTimeout(r, 20));
      const now = socket.bytesWritten - socket.writableLength;
      settled = now === taken ? settled + 1 : 0;
      taken = now;
    }
    expect(sendBufferOf(socket)).toBe(2 * INITIAL_SEND_BUFFER);
    expect(taken).toBeLessThan(1024 * 1024);
  });

  it.each(['tcp', 'tls'] as const)('%s: a client that reads everything gets it all, and its connection a larger buffer', async (transport) => {
    const total = 48 * 1024 * 1024;
    const { client, accepted } = await connection(total, transport);
    let received = 0;
    client.on('data', (b: Buffer) => (received += b.length));
    const socket = await accepted;
    let grown = 0;
    socket.on('drain', () => (grown = Math.max(grown, sendBufferOf(socket) ?? 0)));
    await new Promise((resolve) => client.once('end', resolve));
    expect(received).toBe(total);
    expect(grown).toBeGreaterThan(2 * INITIAL_SEND_BUFFER);
  });

  it('leaves a unix socket alone', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sigmad-sndbuf-'));
    dirs.push(dir);
    const path = join(dir, 's.sock');
    const governed = new Promise<boolean>((resolve) => {
      server = createServer((socket) => {
        resolve(governSendBuffer(socket));
        socket.end();
      });
    });
    await new Promise<void>((resolve) => (server as Server).listen(path, resolve));
    const client = connect(path);
    clients.push(client);
    client.on('error', () => undefined);
    expect(await governed).toBe(false);
  });
});
