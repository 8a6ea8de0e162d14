import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { createServer } from 'node:net';
import { lstat, readFile, stat, writeFile } from 'node:fs/promises';
import { bindOwnerOnly } from '../../http/unix-socket.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeDaemonFacade } from './fake-facade.js';
import { LISTENERS } from './listeners.js';
import type { HttpServer } from '../../http/http-server.js';
import { createHttpApp } from '../../http/http-app.js';
import { ROUTES } from '../../http/routes.js';
import { listenHttp, uwsNativeAvailable } from '../../http/listen.js';
import { send } from './client.js';
import { checkCase, DISABLED_CASES } from './route-suite.js';

for (const [name, listen] of LISTENERS) {
  describe(`${name} adapter on an ephemeral TCP port`, () => {
    let server: HttpServer;
    let facade: FakeDaemonFacade;
    beforeAll(async () => {
      facade = new FakeDaemonFacade({ httpInput: true, tap: true });
      server = await listen(createHttpApp(ROUTES, new FakeDaemonFacade(), { maxBodyBytes: 4096 }), { kind: 'tcp', host: '127.0.0.1', port: 0 });
    });
    afterAll(() => server.close(100));

    it('fails to listen on a port that is taken', async () => {
      const app = createHttpApp(ROUTES, new FakeDaemonFacade());
      await expect(listen(app, server.address)).rejects.toThrow();
    });

    it('reports the port the system chose', () => {
      expect(server.address.kind).toBe('tcp');
      expect(server.address.kind === 'tcp' && server.address.port > 0).toBe(true);
    });

    for (const c of DISABLED_CASES) it(c.name, () => checkCase((r) => send(server.address, r), c));

    it('answers 413 JSON for a body over the cap (announced and chunked)', async () => {
      const announced = await send(server.address, { method: 'POST', url: '/api/v1/silences', body: 'x'.repeat(5000) });
      expect(announced.status).toBe(413);
      expect(JSON.parse(announced.text)).toMatchObject({ error: 'request body too large' });
      const chunked = await send(server.address, {
        method: 'POST',
        url: '/api/v1/silences',
        headers: { 'transfer-encoding': 'chunked' },
        body: 'x'.repeat(5000),
      });
      expect(chunked.status).toBe(413);
    });

    it('reads a chunked JSON body under the cap', async () => {
      const res = await send(server.address, {
        method: 'POST',
        url: '/api/v1/silences',
        headers: { 'transfer-encoding': 'chunked' },
        body: JSON.stringify({ matchers: [{ selector: 'rule', op: '=', value: 'x' }] }),
      });
      expect(res.status).toBe(201);
    });

    it('decodes percent-encoded path parameters and raw query values', async () => {
      const res = await send(server.address, { method: 'DELETE', url: '/api/v1/silences/a%2Fb%20c' });
      expect(JSON.parse(res.text)).toMatchObject({ id: 'a/b c' });
    });

    describe('with ingest and tap on', () => {
      let live: HttpServer;
      beforeAll(async () => {
        live = await listen(createHttpApp(ROUTES, facade), { kind: 'tcp', host: '127.0.0.1', port: 0 });
      });
      afterAll(() => live.close(100));

      it('ingests an NDJSON body', async () => {
        const res = await send(live.address, { method: 'POST', url: '/api/v1/events', body: '{"a":1}\n{"b":2}\n' });
        expect(res.status).toBe(200);
        expect(JSON.parse(res.text)).toEqual({ accepted: 2, parse_errors: 0 });
      });

      it('streams a tap session as chunked NDJSON ending with the summary', async () => {
        const pending = send(live.address, { method: 'GET', url: '/api/v1/tap?limit=2&stage=raw' });
        const session = await waitFor(() => facade.tap?.sessions.at(-1));
        expect(session.request).toMatchObject({ limit: 2, stage: 'raw', durationMs: 30_000 });
        session.sink.push('{"n":1}');
        session.sink.push('{"n":2}');
        session.sink.end('{"svc_tap_summary":{"captured":2,"dropped":0,"duration_ms":1,"stage":"raw"}}');
        const res = await pending;
        expect(res.status).toBe(200);
        expect(res.headers['content-type']).toBe('application/x-ndjson');
        expect(res.text.trim().split('\n').map((l) => JSON.parse(l) as unknown)).toEqual([
          { n: 1 },
          { n: 2 },
          { svc_tap_summary: { captured: 2, dropped: 0, duration_ms: 1, stage: 'raw' } },
        ]);
      });

      it('buffers a bounded number of lines for a slow client, drops the rest, and delivers the kept ones in order', async () => {
        const before = facade.tap?.sessions.length ?? 0;
        const pending = send(live.address, { method: 'GET', url: '/api/v1/tap' });
        const session = await waitFor(() => facade.tap?.sessions[before]);
        const payload = 'p'.repeat(64 * 1024);
        let kept = 0;
        let dropped = 0;
        // Synchronous pushes: the client cannot read meanwhile, so the transport backs up.
        for (let i = 0; i < 5_000 && dropped < 10; i++) {
          if (session.sink.push(JSON.stringify({ i, payload }))) kept += 1;
          else dropped += 1;
        }
        expect(dropped).toBe(10);
        session.sink.end('{"svc_tap_summary":{}}');
        const lines = (await pending).text.trim().split('\n');
        expect(lines).toHaveLength(kept + 1);
        expect(lines.slice(0, -1).map((l) => (JSON.parse(l) as { i: number }).i)).toEqual([...Array(kept).keys()]);
        expect(lines.at(-1)).toBe('{"svc_tap_summary":{}}');
      });

      it('keeps long lines whole, characters outside the BMP included, however the transport cuts them', async () => {
        const before = facade.tap?.sessions.length ?? 0;
        const pending = send(live.address, { method: 'GET', url: '/api/v1/tap' });
        const session = await waitFor(() => facade.tap?.sessions[before]);
        // Odd offsets put surrogate pairs across every split point a writer could choose.
        const lines = [1, 2, 3].map((n) => JSON.stringify({ n, text: 'é'.repeat(n) + '😀x'.repeat(30_000) }));
        for (const line of lines) session.sink.push(line);
        session.sink.end('{"svc_tap_summary":{}}');
        expect((await pending).text).toBe([...lines, '{"svc_tap_summary":{}}', ''].join('\n'));
      });

      it('delivers a chunk larger than the socket buffers while nothing follows it', async () => {
        const before = facade.tap?.sessions.length ?? 0;
        let received = 0;
        const pending = send(live.address, { method: 'GET', url: '/api/v1/tap' }, (chunk) => {
          received += chunk.length;
        });
        const session = await waitFor(() => facade.tap?.sessions[before]);
        const line = JSON.stringify({ big: 'b'.repeat(12_000_000) });
        session.sink.push(line);
        // Only the client's reading lets the rest out: no write follows to push it.
        await waitFor(() => (received >= line.length + 1 ? true : undefined));
        session.sink.end('{"svc_tap_summary":{}}');
        expect((await pending).text).toBe(`${line}\n{"svc_tap_summary":{}}\n`);
      });

      it('tears the session down when the client goes away', async () => {
        const before = facade.tap?.sessions.length ?? 0;
        const pending = send(live.address, { method: 'GET', url: '/api/v1/tap' }, (_chunk, abort) => abort());
        const session = await waitFor(() => facade.tap?.sessions[before]);
        session.sink.push('{"n":1}');
        await pending;
        await waitFor(() => (session.closed ? true : undefined));
        expect(session.sink.push('{"n":2}')).toBe(false);
      });
    });
  });

  describe(`${name} adapter shutdown`, () => {
    it('stops accepting and cuts live sessions still open after the grace period', async () => {
      const facade = new FakeDaemonFacade({ tap: true });
      const server = await listen(createHttpApp(ROUTES, facade), { kind: 'tcp', host: '127.0.0.1', port: 0 });
      let received = '';
      const pending = send(server.address, { method: 'GET', url: '/api/v1/tap' }, (chunk) => {
        received += chunk;
      }).catch(() => undefined);
      const session = await waitFor(() => facade.tap?.sessions[0]);
      session.sink.push('{"n":1}');
      await waitFor(() => (received.length > 0 ? true : undefined));
      await server.close(0);
      expect(session.closed).toBe(true);
      await pending;
      await expect(send(server.address, { method: 'GET', url: '/healthz' })).rejects.toThrow(/ECONNREFUSED/);
    });
  });

  describe(`${name} adapter on a unix socket`, () => {
    let dir: string;
    let server: HttpServer;
    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'sigmad-http-'));
      server = await listen(createHttpApp(ROUTES, new FakeDaemonFacade()), { kind: 'unix', path: join(dir, 'api.sock') });
    });
    afterAll(() => rm(dir, { recursive: true, force: true }));

    it('creates the socket with mode 0600, serves, and unlinks it on close', async () => {
      const path = join(dir, 'api.sock');
      expect((await stat(path)).mode & 0o777).toBe(0o600);
      const res = await send(server.address, { method: 'GET', url: '/healthz' });
      expect(JSON.parse(res.text)).toEqual({ status: 'ok' });
      await server.close(100);
      await expect(stat(path)).rejects.toThrow(/ENOENT/);
    });

    it('refuses a path where another process listens and replaces a stale socket file', async () => {
      const path = join(dir, 'busy.sock');
      const first = await listen(createHttpApp(ROUTES, new FakeDaemonFacade()), { kind: 'unix', path });
      await expect(listen(createHttpApp(ROUTES, new FakeDaemonFacade()), { kind: 'unix', path })).rejects.toThrow(/in use/);
      await first.close(100);
      // A crash leaves the socket file behind: a process that binds it and is killed.
      spawnSync(process.execPath, ['-e', `require('node:net').createServer().listen(${JSON.stringify(path)}, () => process.kill(process.pid, 'SIGKILL'))`]);
      expect((await lstat(path)).isSocket()).toBe(true);
      const second = await listen(createHttpApp(ROUTES, new FakeDaemonFacade()), { kind: 'unix', path });
      expect((await send(second.address, { method: 'GET', url: '/healthz' })).status).toBe(200);
      await second.close(100);
    });

    it('refuses to replace a file that is not a socket, and leaves it alone', async () => {
      const path = join(dir, 'notes.txt');
      await writeFile(path, 'keep me');
      await expect(listen(createHttpApp(ROUTES, new FakeDaemonFacade()), { kind: 'unix', path })).rejects.toThrow(/not a unix socket/);
      expect(await readFile(path, 'utf8')).toBe('keep me');
    });

    it('creates the socket owner-only even under a permissive umask (no window before the chmod)', () => {
      const path = join(dir, 'umask.sock');
      const previous = process.umask(0);
      try {
        const probe = createServer();
        bindOwnerOnly(() => probe.listen(path));
        expect(statSync(path).mode & 0o777).toBe(0o600);
        probe.close();
      } finally {
        process.umask(previous);
      }
    });
  });
}

/** Poll (on the event loop, no wall-clock sleeps) until `get` yields a value. */
async function waitFor<T>(get: () => T | undefined): Promise<T> {
  for (let i = 0; i < 10_000; i++) {
    const v = get();
    if (v !== undefined) return v;
    await new Promise<void>((r) => setImmediate(r));
  }
  throw new Error('condition not reached');
}

describe('adapter choice', () => {
  it('takes uWS on this Node (a shipped native ABI) and node:http when asked', async () => {
    expect(uwsNativeAvailable()).toBe(true);
    for (const [choice, adapter] of [['auto', 'uws'], ['node', 'node']] as const) {
      const server = await listenHttp(createHttpApp(ROUTES, new FakeDaemonFacade()), { kind: 'tcp', host: '127.0.0.1', port: 0 }, choice);
      expect(server.adapter).toBe(adapter);
      expect((await send(server.address, { method: 'GET', url: '/healthz' })).status).toBe(200);
      await server.close(0);
    }
  });
});
