// Runs the real daemon as a child process: builds dist/ once per run (vitest's global setup, and a lock
// directory serialises parallel test files that find it stale), starts the bundled CLI `npm start` and the
// `bin` run (`node dist/bin/sigmad.js daemon ...`), reads the bound address from
// its `listening` log line (the listener is up before start-up ends), waits for `daemon ready`, and
// offers HTTP helpers and polling with deadlines. Every daemon it starts runs in a process group of its
// own, which is SIGKILLed when the test that started it ends (passed, failed or timed out), when the
// file ends (daemons started in beforeAll), and when the test process exits.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, onTestFinished } from 'vitest';
import type { ListenAddress } from '../../http/listen-address.js';
import type { InjectRequest } from '../../http/inject.js';
import { send } from '../http/client.js';
import type { SuiteResponse } from '../http/route-suite.js';

import { ensureBuilt, FIXTURES, MAIN, ROOT } from './build.js';

export { ensureBuilt, FIXTURES, MAIN, ROOT };

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `sigmad-${prefix}-`));
}

/** Poll `check` until it returns a value (not undefined) or the deadline passes. */
export async function waitFor<T>(check: () => T | undefined | Promise<T | undefined>, timeoutMs = 10_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Process groups of daemons started and not yet seen to exit. */
const running = new Map<number, Promise<unknown>>();

/** SIGKILL a daemon's whole process group (it is the group's leader) and wait, bounded, for its exit. */
async function killGroup(pid: number): Promise<void> {
  const exited = running.get(pid);
  if (exited === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
  await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000).unref())]);
  running.delete(pid);
}

/** Every daemon this file started and that still runs. */
async function stopAllDaemons(): Promise<void> {
  await Promise.all([...running.keys()].map(killGroup));
}

afterAll(stopAllDaemons);

/**
 * A test process that ends anyway (a crash, a worker recycled) takes its daemons with it. vitest runs
 * many files in one process, each with its own copy of this module: one listener serves them all.
 */
const PROCESS_DAEMONS = Symbol.for('sigmad.e2e.daemon-groups');
const processDaemons = ((globalThis as Record<symbol, Set<number> | undefined>)[PROCESS_DAEMONS] ??= (() => {
  const pids = new Set<number>();
  process.once('exit', () => {
    for (const pid of pids) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  });
  return pids;
})());

/** Kill the daemon when the current test ends; outside a test (beforeAll), afterAll does. */
function stopWithTest(pid: number): void {
  try {
    onTestFinished(() => killGroup(pid));
  } catch {
    // Not inside a test.
  }
}

/**
 * A budget by progress rather than wall-clock: `stalled` rejects once `stallMs` pass without a call
 * to `progress()`, however long the whole run takes on a busy machine. Race the test body against it.
 */
export function progressWatchdog(stallMs: number, what: string): { progress(): void; readonly stalled: Promise<never>; stop(): void } {
  let last = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const stalled = new Promise<never>((_resolve, reject) => {
    timer = setInterval(() => {
      if (Date.now() - last > stallMs) reject(new Error(`${what}: no progress for ${stallMs} ms`));
    }, 1_000);
  });
  stalled.catch(() => undefined);
  return {
    progress: () => (last = Date.now()),
    stalled,
    stop: () => clearInterval(timer),
  };
}

export interface RunningDaemon {
  readonly proc: ChildProcess;
  readonly address: ListenAddress;
  readonly logs: string[];
  readonly stdout: string[];
  request(r: InjectRequest): Promise<SuiteResponse>;
  json(r: InjectRequest): Promise<{ status: number; body: Record<string, unknown> }>;
  /** Resolves with the exit code (or the signal name). */
  exited: Promise<number | string>;
  kill(signal?: NodeJS.Signals): void;
}

export interface StartOptions {
  readonly env?: Readonly<Record<string, string>>;
  /** Do not wait for `listening` (start-up failures). */
  readonly noWait?: boolean;
  /** Return once the listener is up, before start-up (rule load, state replay) has ended. */
  readonly listeningOnly?: boolean;
  readonly stdin?: 'pipe';
  /** Start on the bundled profile (what `npm start` runs) instead of an empty config. */
  readonly bundled?: boolean;
  /** The daemon's working directory (default: the package root). */
  readonly cwd?: string;
  /** Another copy of the CLI (default MAIN), and node flags before it. */
  readonly main?: string;
  readonly nodeFlags?: readonly string[];
}

/** The daemon ended before it listened: `exit` is its exit code or the signal that ended it. */
export class DaemonStartError extends Error {
  constructor(
    readonly exit: number | string,
    logs: readonly string[],
  ) {
    super(`daemon exited during start-up (${exit}):\n${logs.join('\n')}`);
  }
}

/** The config file `npm start` passes (package.json `start`), relative to the package root. */
export const BUNDLED_CONFIG = 'config/bundled.yaml';

/** `daemon` with `args` after an empty `--config` (schema defaults), or on the bundled profile. */
export async function startDaemon(args: readonly string[], options: StartOptions = {}): Promise<RunningDaemon> {
  await ensureBuilt();
  const config = ['--config', options.bundled === true ? BUNDLED_CONFIG : join(FIXTURES, 'empty.yaml')];
  const proc = spawn(process.execPath, [...(options.nodeFlags ?? []), options.main ?? MAIN, 'daemon', ...config, ...args], {
    cwd: options.cwd ?? ROOT,
    env: { ...process.env, ...options.env },
    stdio: [options.stdin ?? 'ignore', 'pipe', 'pipe'],
    // Its own process group, so cleanup reaches whatever it started too.
    detached: true,
  });
  const logs: string[] = [];
  const stdout: string[] = [];
  let address: ListenAddress | undefined;
  let ready = false;
  let pending = '';
  proc.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    pending += chunk;
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      logs.push(line);
      const addr = listeningAddress(line);
      if (addr !== undefined) address = addr;
      if (line.includes('"msg":"daemon ready"')) ready = true;
    }
  });
  let out = '';
  proc.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
    const lines = out.split('\n');
    out = lines.pop() ?? '';
    stdout.push(...lines);
  });
  const exited = new Promise<number | string>((resolveExit) => proc.on('exit', (code, signal) => resolveExit(code ?? signal ?? -1)));
  const pid = proc.pid;
  if (pid !== undefined) {
    running.set(pid, exited);
    processDaemons.add(pid);
    void exited.then(() => {
      running.delete(pid);
      processDaemons.delete(pid);
    });
    stopWithTest(pid);
  }
  let gone = false;
  void exited.then(() => (gone = true));
  if (options.noWait !== true) {
    const up = (): boolean => address !== undefined && (ready || options.listeningOnly === true);
    await waitFor(() => (gone ? exited.then((code) => Promise.reject(new DaemonStartError(code, logs))) : up() || undefined), 30_000, 'the daemon to start');
  }
  const addr = address ?? { kind: 'tcp', host: '127.0.0.1', port: 0 };
  // A failed request says whether the daemon was still running and what it logged last.
  const request = (r: InjectRequest): Promise<SuiteResponse> =>
    send(addr, r).catch((error: unknown) => {
      const state = gone ? 'the daemon had exited' : 'the daemon was running';
      throw new Error(`${r.method} ${r.url} failed (${state}): ${String(error)}\nlast daemon log lines:\n${logs.slice(-20).join('\n')}`, { cause: error });
    });
  return {
    proc,
    address: addr,
    logs,
    stdout,
    request,
    async json(r) {
      const res = await request(r);
      return { status: res.status, body: JSON.parse(res.text) as Record<string, unknown> };
    },
    exited,
    kill: (signal = 'SIGTERM') => {
      if (!gone) proc.kill(signal);
    },
  };
}

function listeningAddress(line: string): ListenAddress | undefined {
  if (!line.includes('"listening"')) return undefined;
  const addr = (JSON.parse(line) as { addr?: string }).addr;
  if (addr === undefined) return undefined;
  if (addr.startsWith('unix://')) return { kind: 'unix', path: addr.slice('unix://'.length) };
  const i = addr.lastIndexOf(':');
  return { kind: 'tcp', host: addr.slice(0, i).replace(/^\[|\]$/g, ''), port: Number(addr.slice(i + 1)) };
}

/** NDJSON body of events. */
export function ndjson(events: readonly unknown[]): string {
  return events.map((e) => JSON.stringify(e)).join('\n') + '\n';
}

/** Lines of an NDJSON file parsed (missing file: none). */
export function readNdjson(path: string): Record<string, unknown>[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}
