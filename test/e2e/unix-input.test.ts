// `--input unix:///path` on the real daemon (daemon-semantics §3.1, §18.2): concurrent writers, CRLF
// and a last line without newline, an owner-only socket file that is removed on shutdown.
import { existsSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, FIXTURES, readNdjson, startDaemon, tempDir, waitFor } from './harness.js';
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
