// `sigmad tail` and `sigmad tap` against the real daemon over a unix socket: lines as they arrive,
// a daemon restart during `sigmad tail` (reconnect, said on stderr), the summary, exit 0 on Ctrl-C.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FIXTURES, MAIN, ndjson, ROOT, startDaemon, tempDir, waitFor } from './harness.js';
import type { RunningDaemon } from './harness.js';

interface Client {
  readonly proc: ChildProcess;
  readonly out: string[];
  readonly err: string[];
  readonly exited: Promise<number | string>;
}

function runClient(args: readonly string[]): Client {
  const proc = spawn(process.execPath, [MAIN, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const out: string[] = [];
  const err: string[] = [];
  const collect = (into: string[]) => {
    let pending = '';
    return (chunk: string) => {
      pending += chunk;
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      into.push(...lines);
    };
  };
  proc.stdout?.setEncoding('utf8').on('data', collect(out));
  proc.stderr?.setEncoding('utf8').on('data', collect(err));
  const exited = new Promise<number | string>((resolve) => proc.on('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  return { proc, out, err, exited };
}

const running: { kill(signal?: NodeJS.Signals): void }[] = [];
afterEach(() => {
  for (const r of running.splice(0)) r.kill('SIGKILL');
});

async function sessions(daemon: RunningDaemon, name: string, n: number): Promise<void> {
  const re = new RegExp(`^${name} ${n}$`, 'm');
  await waitFor(async () => (re.test((await daemon.request({ method: 'GET', url: '/metrics' })).text) ? true : undefined), 20_000, `${name} ${n}`);
}

describe('streaming clients', () => {
  it('sigmad tail prints detections as they arrive, rides out a daemon restart, and exits 0 with the summary on Ctrl-C', async () => {
    const sock = join(tempDir('tail-client'), 'api.sock');
    const args = ['--rules', join(FIXTURES, 'rules'), '--input', 'http', '--enable-tail', '--api-addr', `unix://${sock}`, '--output', `file://${join(tempDir('tail-out'), 'out.ndjson')}`];
    const first = await startDaemon(args);
    running.push(first);
    const client = runClient(['tail', '--url', `unix://${sock}`, '--level', 'high', '--format', 'pretty']);
    running.push({ kill: (s) => client.proc.kill(s) });
    await sessions(first, 'svc_tail_active_sessions', 1);
    await first.request({ method: 'POST', url: '/api/v1/events', body: ndjson([{ CommandLine: 'whoami' }]) });
    await waitFor(() => (client.out.length >= 1 ? true : undefined), 20_000, 'the first detection');
    first.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    await waitFor(() => (client.err.some((l) => l.includes('reconnecting')) ? true : undefined), 20_000, 'the client to say it reconnects');

    const second = await startDaemon(args);
    running.push(second);
    await sessions(second, 'svc_tail_active_sessions', 1);
    await second.request({ method: 'POST', url: '/api/v1/events', body: ndjson([{ CommandLine: 'whoami /all' }]) });
    await waitFor(() => (client.out.length >= 2 ? true : undefined), 20_000, 'the detection after the restart');
    client.proc.kill('SIGINT');
    expect(await client.exited).toBe(0);

    const [a, b, summary] = client.out;
    // Pretty: one line per detection (level, title, matched fields), and no colour off a TTY.
    expect(a).toMatch(/^\d\d:\d\d:\d\d high +Whoami Execution {2}CommandLine=whoami$/);
    expect(b).toContain('CommandLine=whoami /all');
    expect(client.out.join('\n')).not.toContain('\u001b[');
    expect(JSON.parse(summary ?? '')).toEqual({ svc_tail_summary: { streamed: 2, dropped: 0 } });
    expect(client.err.join('\n')).toMatch(/sigmad tail: .*reconnecting in/);
    expect(client.err.join('\n')).toContain('sigmad tail: reconnected');
    second.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  }, 90_000);

  it('sigmad tap streams redacted raw lines, stops at its limit and prints the summary; bad flags exit 2', async () => {
    const sock = join(tempDir('tap-client'), 'api.sock');
    const daemon = await startDaemon(['--rules', join(FIXTURES, 'rules'), '--input', 'http', '--enable-tap', '--api-addr', `unix://${sock}`]);
    running.push(daemon);
    const client = runClient(['tap', '--url', `unix://${sock}`, '--stage', 'raw', '--redact', 'User', '--limit', '1']);
    running.push({ kill: (s) => client.proc.kill(s) });
    await sessions(daemon, 'svc_tap_active_sessions', 1);
    await daemon.request({ method: 'POST', url: '/api/v1/events', body: ndjson([{ CommandLine: 'dir', User: 'alice' }]) });
    expect(await client.exited).toBe(0);
    expect(JSON.parse(client.out[0] ?? '')).toEqual({ CommandLine: 'dir', User: expect.stringMatching(/^svc:redacted:[0-9a-f]{16}$/) });
    expect(JSON.parse(client.out[1] ?? '')).toMatchObject({ svc_tap_summary: { captured: 1, dropped: 0, stage: 'raw' } });

    const bad = runClient(['tap', '--url', `unix://${sock}`, '--stage', 'cooked']);
    expect(await bad.exited).toBe(2);
    expect(bad.err.join('\n')).toContain('--stage cooked');
    daemon.kill('SIGTERM');
    expect(await daemon.exited).toBe(0);
  }, 60_000);
});
