import { spawn } from 'node:child_process';
import type { CompiledTemplate } from '../result-template.js';
import { EnrichError, MAX_ENRICH_BYTES, type EnrichCall } from './enricher.js';

export interface CommandSettings {
  readonly argv: readonly CompiledTemplate[];
  readonly env: readonly (readonly [string, CompiledTemplate])[];
  readonly output: 'json' | 'raw';
  /** The environment the command inherits (the daemon's), under the entry's `env`. */
  readonly baseEnv: Readonly<Record<string, string | undefined>>;
}

/** How much of stderr a failure message quotes (§7.3). */
const STDERR_QUOTE_BYTES = 4096;

/**
 * `type: command` (§7.3): spawn the rendered argv without a shell, capture stdout (over 10 MiB: killed,
 * an error) and the start of stderr; killed when the enricher's timeout aborts it. A non-zero exit is
 * an error quoting stderr; stdout is parsed as JSON or injected raw without its trailing line end.
 */
export function commandCall(settings: CommandSettings): EnrichCall {
  return (result, signal) =>
    new Promise<unknown>((resolve, reject) => {
      const [program, ...args] = settings.argv.map((t) => t.render(result));
      const env: Record<string, string | undefined> = { ...settings.baseEnv };
      for (const [name, value] of settings.env) env[name] = value.render(result);
      const child = spawn(program as string, args, { env, stdio: ['ignore', 'pipe', 'pipe'], shell: false, signal, killSignal: 'SIGKILL' });
      const out: Buffer[] = [];
      let outBytes = 0;
      let err = Buffer.alloc(0);
      let failure: EnrichError | undefined;
      child.stdout.on('data', (chunk: Buffer) => {
        outBytes += chunk.length;
        if (outBytes > MAX_ENRICH_BYTES) {
          failure ??= new EnrichError(`stdout is over the ${MAX_ENRICH_BYTES}-byte limit`);
          child.kill('SIGKILL');
          return;
        }
        out.push(chunk);
      });
      child.stderr.on('data', (chunk: Buffer) => {
        if (err.length < STDERR_QUOTE_BYTES) err = Buffer.concat([err, chunk]).subarray(0, STDERR_QUOTE_BYTES);
      });
      child.on('error', (error) => {
        failure ??= new EnrichError(`cannot run ${program}: ${error.message}`, { cause: error });
      });
      child.on('close', (code, killedBy) => {
        if (failure !== undefined) return reject(failure);
        if (code !== 0) return reject(new EnrichError(code === null ? `killed by ${killedBy ?? 'a signal'}: ${err.toString('utf8')}` : `exit ${code}: ${err.toString('utf8')}`));
        const stdout = Buffer.concat(out).toString('utf8');
        if (settings.output === 'raw') return resolve(stdout.replace(/[\r\n]+$/, ''));
        try {
          resolve(JSON.parse(stdout) as unknown);
        } catch (error) {
          reject(new EnrichError(`stdout is not JSON: ${error instanceof Error ? error.message : String(error)}`));
        }
      });
    });
}
