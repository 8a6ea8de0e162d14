// Runs the bundled `sigmad` for a build step (the code caches, the bundled profile's compiled-rule entry):
// from the package root, its stderr (the log) collected, failing the step when it does not exit 0 in time.
import { spawn } from 'node:child_process';
import { join } from 'node:path';

const RUN_TIMEOUT_MS = 120_000;

export interface BuildRun {
  /** The build step, for its errors. */
  readonly step: string;
  readonly env?: NodeJS.ProcessEnv;
  /** Called with the whole log so far on each piece of it; `stop` sends SIGTERM. */
  readonly onLog?: (log: string, stop: () => void) => void;
}

/** Resolves with the log once `sigmad args` exited 0. */
export function runSigmad(root: string, args: readonly string[], run: BuildRun): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(root, 'dist/bin/sigmad.js'), ...args], {
      cwd: root,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, ...run.env },
    });
    let log = '';
    const stop = (): void => void child.kill('SIGTERM');
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${run.step}: sigmad ${args[0] ?? ''} did not finish in ${String(RUN_TIMEOUT_MS)} ms:\n${log.slice(-2000)}`));
    }, RUN_TIMEOUT_MS);
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      log += chunk;
      run.onLog?.(log, stop);
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(log);
      else reject(new Error(`${run.step}: sigmad ${args[0] ?? ''} exited ${String(code)}:\n${log.slice(-2000)}`));
    });
  });
}
