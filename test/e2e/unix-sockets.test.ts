// Unix sockets on the real daemon. `--input unix:///path` (daemon-semantics §3.1, §18.2): concurrent
// writers, CRLF and a last line without newline, an owner-only socket file removed on shutdown.
// `--output unix:///path` (§4.1): lines to a collector's socket, reconnecting after it drops us.
import { existsSync, statSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, FIXTURES, ndjson, readNdjson, startDaemon, tempDir, waitFor } from './harness.js';
import type { RunningDaemon } from './harness.js';

beforeAll(ensureBuilt, 180_000);

function write(path: string, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect(path, () => socket.end(text));
    socket.once('close', () => resolve());
    socket.once('error', reject);
  });
}

describe('unix socket input', () => {
  let daemon: RunningDaemon;
  let out: string;
  let sock: string;
  beforeAll(async () => {
    const dir = tempDir('unix-input');
    out = join(dir, 'out.ndjson');
    sock = join(dir, 'in.sock');
    daemon = await startDaemon(['--rules', join(FIXTURES, 'rules'), '--input', `unix://${sock}`, '--input-format', 'json', '--api-addr', '127.0.0.1:0', '--output', `file://${out}`]);
  });
  afterAll(async () => {
    daemon.kill();
    await daemon.exited;
  });

  it('reads every connection as NDJSON into the pipeline and removes its socket file on shutdown', async () => {
    expect(statSync(sock).mode & 0o777).toBe(0o600);
    await Promise.all([
      write(sock, '{"CommandLine":"whoami /a"}\r\nnot json\n{"CommandLine":"whoami /b"}'),
      write(sock, '{"CommandLine":"whoami /c"}\n\n'),
    ]);
    const lines = await waitFor(() => {
      const l = readNdjson(out);
      return l.length >= 3 ? l : undefined;
    });
    expect(lines.map((l) => l['rule_title'])).toEqual(['Whoami Execution', 'Whoami Execution', 'Whoami Execution']);
    const metrics = (await daemon.request({ method: 'GET', url: '/metrics' })).text;
    expect(metrics).toMatch(/^svc_events_parse_errors_total 1$/m);
    expect(metrics).toMatch(/^svc_events_processed_total 3$/m);
    daemon.kill();
    expect(await daemon.exited).toBe(0);
    expect(existsSync(sock)).toBe(false);
  });
});

describe('unix socket sink', () => {
  let daemon: RunningDaemon | undefined;
  const received: string[] = [];
  const clients = new Set<Socket>();
  const collector = createServer((socket) => {
    clients.add(socket);
    let pending = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => {
      const parts = (pending + chunk).split('\n');
      pending = parts.pop() ?? '';
      received.push(...parts);
    });
    socket.on('close', () => clients.delete(socket));
  });
  let sock: string;
  beforeAll(async () => {
    sock = join(tempDir('unix-sink'), 'collector.sock');
    await new Promise<void>((resolve) => collector.listen(sock, resolve));
  });
  afterAll(async () => {
    daemon?.kill();
    await daemon?.exited;
    for (const c of clients) c.destroy();
    await new Promise<void>((resolve) => collector.close(() => resolve()));
  });

  it('writes one line per result and reconnects after the collector drops the connection', async () => {
    const d = await startDaemon(['--rules', join(FIXTURES, 'rules'), '--input', 'http', '--input-format', 'json', '--api-addr', '127.0.0.1:0', '--output', `unix://${sock}`]);
    daemon = d;
    const post = (cmd: string) => d.json({ method: 'POST', url: '/api/v1/events', body: ndjson([{ CommandLine: cmd }]) });
    expect((await post('whoami /one')).status).toBe(200);
    await waitFor(() => (received.length >= 1 ? true : undefined));
    for (const c of clients) c.destroy();
    await waitFor(() => (clients.size === 0 ? true : undefined));
    expect((await post('whoami /two')).status).toBe(200);
    await waitFor(() => (received.length >= 2 ? true : undefined), 20_000, 'the result after the reconnect');
    expect(received.map((l) => (JSON.parse(l) as { rule_title: string }).rule_title)).toEqual(['Whoami Execution', 'Whoami Execution']);
  });

  it('fails start-up (exit 3) when nobody listens on the socket', async () => {
    const d = await startDaemon(['--rules', join(FIXTURES, 'rules'), '--input', 'http', '--api-addr', '127.0.0.1:0', '--output', `unix://${sock}.missing`], { noWait: true });
    expect(await d.exited).toBe(3);
    expect(d.logs.join('\n')).toContain(`unix://${sock}.missing`);
  });
});
