// `sigmad webhook verify --scheme standard|github --secret-env VAR [--request FILE]`: checks the
// signature of a captured HTTP request (as `nc -l` or a proxy dumps it: optional request line,
// headers, blank line, body) so an operator can check a receiver's setup without writing code.
// Prints a JSON verdict; exit 0 valid, 1 invalid, 2 bad usage.
import { readFile } from 'node:fs/promises';
import type { CAC } from 'cac';
import { decodeSecret, verifySignature } from '../streams/index.js';
import { UsageError } from './load-pipelines.js';

interface VerifyFlags {
  readonly scheme?: string;
  readonly secretEnv?: string;
  readonly secretEncoding?: string;
  readonly request?: string;
}

/** A captured request's headers (names lower-cased) and its exact body text. */
function parseCapturedRequest(text: string): { headers: Record<string, string>; body: string } {
  const crlf = text.indexOf('\r\n\r\n');
  const lf = text.indexOf('\n\n');
  const useCrlf = crlf !== -1 && (lf === -1 || crlf < lf);
  const end = useCrlf ? crlf : lf;
  const head = end === -1 ? text : text.slice(0, end);
  const body = end === -1 ? '' : text.slice(end + (useCrlf ? 4 : 2));
  const headers: Record<string, string> = {};
  for (const line of head.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    // The request line (`POST /hook HTTP/1.1`) has no colon before its first space.
    if (colon <= 0 || /\s/.test(line.slice(0, colon))) continue;
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { headers, body };
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString('utf8');
}

export function registerWebhookCommand(cli: CAC): void {
  cli
    .command('webhook <action>', 'Check a captured webhook request: `sigmad webhook verify --scheme standard|github --secret-env VAR [--request FILE]` (stdin by default)')
    .option('--scheme <scheme>', 'standard (Standard Webhooks) or github')
    .option('--secret-env <var>', 'Environment variable holding the signing secret')
    .option('--secret-encoding <encoding>', 'utf8 (default) or base64 (a whsec_ prefix is stripped)')
    .option('--request <file>', 'Captured request: headers, a blank line, the body (default stdin)')
    .action(async (action: string, flags: VerifyFlags) => {
      if (action !== 'verify') throw new UsageError(`unknown webhook action '${action}' (known: verify)`);
      const scheme = flags.scheme;
      if (scheme !== 'standard' && scheme !== 'github') throw new UsageError('--scheme must be standard or github');
      const encoding = flags.secretEncoding ?? 'utf8';
      if (encoding !== 'utf8' && encoding !== 'base64') throw new UsageError('--secret-encoding must be utf8 or base64');
      if (flags.secretEnv === undefined) throw new UsageError('--secret-env VAR is required');
      const secret = process.env[String(flags.secretEnv)];
      if (secret === undefined || secret === '') throw new UsageError(`environment variable ${flags.secretEnv} is unset or empty`);
      const text = flags.request === undefined ? await readStdin() : await readFile(String(flags.request), 'utf8');
      const { headers, body } = parseCapturedRequest(text);
      const outcome = verifySignature(scheme, decodeSecret(secret, encoding), headers, body);
      process.stdout.write(`${JSON.stringify({ scheme, ...outcome })}\n`);
      if (!outcome.valid) process.exitCode = 1;
    });
}
