#!/usr/bin/env node
// The `sigmad` command line: one cac program, each command registered by its own module.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { cac } from 'cac';
import { compactStateDir, inspectStateDir, verifyAuditDir } from '../state/index.js';
import { listBuiltinPipelines } from '../sigma/index.js';
import { registerDaemonCommand } from './daemon-command.js';
import { registerConvertCommand } from './convert-command.js';
import { registerEvalCommand } from './eval-command.js';
import { registerWebhookCommand } from './webhook-verify-command.js';
import { registerStreamCommands } from './stream-commands.js';
import { registerScorecardCommand } from './scorecard-command.js';
import { inspectStateUrl } from './api-document.js';
import { UsageError } from './load-pipelines.js';

const cli = cac('sigmad');
registerEvalCommand(cli);
registerDaemonCommand(cli);
registerConvertCommand(cli);
registerWebhookCommand(cli);
registerStreamCommands(cli);
registerScorecardCommand(cli);

cli.command('pipelines', 'List the built-in processing pipelines').action(() => {
  for (const p of listBuiltinPipelines()) process.stdout.write(`${p.name}\t${p.description}\n`);
});

cli
  .command('state <action>', 'Inspect a state directory (`sigmad state inspect --state-db DIR`, also while the daemon runs, or `--url URL` of a running daemon) or compact it (`compact`, daemon stopped)')
  .option('--state-db <dir>', 'State directory (LMDB)')
  .option('--url <url>', 'inspect: a running daemon\'s API URL instead of a directory')
  .option('--token-env <var>', 'Environment variable holding a bearer token (with --url)')
  .action(async (action: string, flags: { stateDb?: string; url?: string; tokenEnv?: string }) => {
    if (action !== 'inspect' && action !== 'compact') throw new UsageError(`unknown state action '${action}' (known: inspect, compact)`);
    if (action === 'inspect' && flags.url !== undefined) {
      process.stdout.write(`${JSON.stringify(await inspectStateUrl(String(flags.url), flags.tokenEnv), null, 2)}\n`);
      return;
    }
    if (flags.stateDb === undefined) throw new UsageError('--state-db DIR is required');
    const dir = String(flags.stateDb);
    // Compacting a missing environment would create an empty one.
    if (action === 'compact' && !existsSync(join(dir, 'data.mdb'))) throw new UsageError(`no state database in ${dir}`);
    const report = action === 'inspect' ? await inspectStateDir(dir) : await compactStateDir(dir);
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  });

cli
  .command('audit <action>', 'Verify the hash chain of the control-plane audit trail (`sigmad audit verify --state-db DIR`); exit 1 names the first broken link')
  .option('--state-db <dir>', 'State directory (LMDB)')
  .action(async (action: string, flags: { stateDb?: string }) => {
    if (action !== 'verify') throw new UsageError(`unknown audit action '${action}' (known: verify)`);
    if (flags.stateDb === undefined) throw new UsageError('--state-db DIR is required');
    const result = await verifyAuditDir(String(flags.stateDb));
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    if (!result.ok) process.exitCode = 1;
  });

cli.help();
cli.version('0.1.0');

// No top-level await: the bundle is CommonJS (cli/bundle-loader.ts runs it with V8's code cache).
void run();

async function run(): Promise<void> {
  try {
    cli.parse(process.argv, { run: false });
    if (cli.matchedCommand === undefined && cli.args.length > 0) throw new UsageError(`unknown command '${cli.args[0]}'`);
    await cli.runMatchedCommand();
  } catch (e) {
    process.stderr.write(`sigmad: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = typeof (e as { exitCode?: unknown }).exitCode === 'number' ? (e as { exitCode: number }).exitCode : usageExitCode();
  }
}

/**
 * cac's own errors (a flag given without its value, e.g. `--batch-size -5` read as two flags) are bad
 * flags: the daemon's code for those is 3 (daemon-semantics §2.3), the other commands' is 2.
 */
function usageExitCode(): number {
  return cli.matchedCommand?.name === 'daemon' ? 3 : 2;
}
