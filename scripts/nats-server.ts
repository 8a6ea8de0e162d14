// A private JetStream server for a test or a bench: Debian's `nats-server` on a port it picks (`-p -1`, read back
// from its log), storing in a temporary directory; `stop` kills it and removes the directory.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface NatsServer {
  /** `nats://127.0.0.1:<port>`. */
  readonly url: string;
  readonly port: number;
  /** SIGKILL (an outage or a crash) and wait for the exit; the store directory stays. */
  kill(): Promise<void>;
  /** Start again on the same port and store (after `kill`). */
  restart(): Promise<void>;
  /** Kill and remove the store. */
  stop(): Promise<void>;
}

function launch(port: number, dir: string): Promise<{ proc: ChildProcess; port: number }> {
  const proc = spawn('nats-server', ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', dir], { stdio: ['ignore', 'ignore', 'pipe'] });
  return new Promise((resolve, reject) => {
    let log = '';
    let bound = port;
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`nats-server did not start:\n${log}`));
    }, 20_000);
    proc.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`nats-server exited (${String(code)}):\n${log}`));
    });
    proc.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      log += chunk;
      const m = /Listening for client connections on [^:\s]+:(\d+)/.exec(log);
      if (m !== null) bound = Number(m[1]);
      if (log.includes('Server is ready')) {
        clearTimeout(timer);
        resolve({ proc, port: bound });
      }
    });
  });
}

function exited(proc: ChildProcess): Promise<void> {
  return proc.exitCode !== null || proc.signalCode !== null ? Promise.resolve() : new Promise((resolve) => proc.once('exit', () => resolve()));
}

export async function startNatsServer(): Promise<NatsServer> {
  const dir = mkdtempSync(join(tmpdir(), 'sigmad-nats-'));
  let { proc, port } = await launch(-1, dir);
  const kill = async (): Promise<void> => {
    proc.kill('SIGKILL');
    await exited(proc);
  };
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    kill,
    async restart() {
      ({ proc, port } = await launch(port, dir));
    },
    async stop() {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
