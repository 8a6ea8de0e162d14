// One-shot `sigmad eval` as a user runs it (issue 19 §3): wall-clock from process start over 100,000
// Sysmon process-creation events (about 1.1 KB each) with the bundled corpus and the sysmon pipeline,
// output to /dev/null, against a node process that only reads the file and JSON.parses each line.
// Run after `npm run build`: `node dist/scripts/bench/eval.js`.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isMain, printRows, type BenchRow } from './bench-row.js';
import { processCreationLane } from './lanes.js';
import { MAIN, ROOT } from './daemon.js';

const EVENTS = 100_000;

/** Wall-clock ms of `node args…` from spawn to exit, its stdout discarded. */
function wallMs(args: readonly string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(performance.now() - started) : reject(new Error(`exit ${String(code)}: ${stderr}`))));
  });
}

const PARSE_ONLY = `const fs = require('node:fs');
let n = 0;
for (const line of fs.readFileSync(process.argv[1], 'utf8').split('\\n')) if (line !== '') n += JSON.parse(line) === null ? 0 : 1;
if (n === 0) process.exit(1);`;

export async function runEvalBench(): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'sigmad-eval-bench-'));
  try {
    const file = join(dir, 'events.ndjson');
    writeFileSync(file, `${processCreationLane(EVENTS).lines.join('\n')}\n`);
    const evalArgs = [MAIN, 'eval', '--rules', 'rules/sigmahq/rules', '--pipeline', 'sysmon', file];
    const parse = await wallMs(['-e', PARSE_ONLY, file]);
    const workers = await wallMs([...evalArgs, '--detect-workers', '2']);
    const single = await wallMs(evalArgs);
    return [
      { name: 'eval_100k_read_parse_only_node', value: Math.round(parse), unit: 'ms' },
      { name: 'eval_100k_wall_auto (one thread at this size)', value: Math.round(single), unit: 'ms' },
      { name: 'eval_100k_wall_2_workers', value: Math.round(workers), unit: 'ms' },
      { name: 'eval_100k_parse_only_over_eval_auto', value: Number((parse / single).toFixed(2)), unit: 'ratio (target >= 0.4)' },
      { name: 'eval_100k_parse_only_over_eval_2_workers', value: Number((parse / workers).toFixed(2)), unit: 'ratio' },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const EVAL_TITLE = 'One-shot eval (100k events, bundled corpus, wall-clock from spawn)';

if (isMain(import.meta.url)) printRows(EVAL_TITLE, await runEvalBench());
