import { spawn } from 'node:child_process';
import { MAX_STDERR_BYTES } from '../source-spec.js';
import { SourceError } from '../source-error.js';
import { ByteCap } from './byte-cap.js';

/**
 * Runs argv without a shell; stdout is the value. Past the timeout or the stdout cap the process is
 * killed (`Timeout`, `ResourceLimit`); a non-zero exit is `Fetch` with its stderr (first 64 KiB).
 */
export function fetchCommand(argv: readonly string[], timeoutMs: number, maxBytes: number): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const [program = '', ...args] = argv;
    const child = spawn(program, args, { shell: false, stdio: ['ignore', 'pipe', 'pipe'] });
    const out = new ByteCap(maxBytes, `the output of ${program}`);
    let stderr = '';
    let failed: SourceError | undefined;
    const fail = (error: SourceError): void => {
      failed ??= error;
      child.kill('SIGKILL');
    };
    const timer = setTimeout(() => fail(new SourceError('Timeout', `${program} did not finish within ${timeoutMs} ms`)), timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => {
      try {
        out.add(chunk);
      } catch (error) {
        fail(error as SourceError);
      }
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < MAX_STDERR_BYTES) stderr += chunk.toString('utf8').slice(0, MAX_STDERR_BYTES - stderr.length);
    });
    child.on('error', (error) => fail(new SourceError('Fetch', `${program}: ${error.message}`)));
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (failed !== undefined) return reject(failed);
      if (code !== 0) return reject(new SourceError('Fetch', `${program} exited with ${code ?? signal}: ${stderr.trim()}`));
      resolve(out.bytes());
    });
  });
}
