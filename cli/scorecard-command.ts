import { readFile } from 'node:fs/promises';
import type { CAC } from 'cac';
import { fetchApiDocument } from './api-document.js';
import { UsageError } from './load-pipelines.js';
import { buildScorecard, renderScorecard } from './scorecard.js';
import { authHeaders } from './stream-commands.js';

interface ScorecardFlags {
  readonly from?: string;
  readonly format?: string;
  readonly tokenEnv?: string;
  readonly noisyRatio?: string | number;
}

const DOCUMENT_PATH = '/api/v1/dispositions';

/** The document at `from`: a daemon's base URL (or the route's URL itself), or a file. */
async function readDocument(from: string, headers: Record<string, string>): Promise<unknown> {
  if (!/^https?:\/\//.test(from)) return JSON.parse(await readFile(from, 'utf8')) as unknown;
  return fetchApiDocument(from, DOCUMENT_PATH, headers);
}

export function registerScorecardCommand(cli: CAC): void {
  cli
    .command('scorecard', 'Rate rules by their analyst dispositions (GET /api/v1/dispositions of a daemon, or that document in a file), worst first')
    .option('--from <url|file>', 'Daemon URL or dispositions document file (default http://127.0.0.1:9090)')
    .option('--format <format>', 'table, json or markdown (default table)')
    .option('--token-env <var>', 'Environment variable holding a bearer token for the daemon')
    .option('--noisy-ratio <ratio>', 'False-positive ratio from which a rule is noisy (default 0.5)')
    .action(async (flags: ScorecardFlags) => {
      const format = flags.format ?? 'table';
      if (format !== 'table' && format !== 'json' && format !== 'markdown') throw new UsageError(`--format: '${format}' is not table, json or markdown`);
      const noisy = Number(flags.noisyRatio ?? 0.5);
      if (!(noisy >= 0 && noisy <= 1)) throw new UsageError('--noisy-ratio: a number from 0 to 1');
      const headers = authHeaders(flags.tokenEnv);
      const from = flags.from ?? 'http://127.0.0.1:9090';
      let doc: unknown;
      try {
        doc = await readDocument(from, headers);
      } catch (error) {
        throw Object.assign(new Error(`cannot read ${from}: ${error instanceof Error ? error.message : String(error)}`), { exitCode: 1 });
      }
      let card;
      try {
        card = buildScorecard(doc, noisy);
      } catch (error) {
        throw Object.assign(new Error(`${from}: ${error instanceof Error ? error.message : String(error)}`), { exitCode: 1 });
      }
      process.stdout.write(renderScorecard(card, format));
    });
}
