// One-shot `sigmad eval` as a user runs it (issue 19 §3): wall-clock from process start over 100,000
// Sysmon process-creation events (about 1.1 KB each) with the bundled corpus and the sysmon pipeline,
// output to /dev/null, against a node process that only reads the file and JSON.parses each line; one
// thread with a cold compiled-rule cache (the first run) and a warm one, and `auto` (warm: at this size
// one chunk worker per core besides the main thread, which detects too), alternating, medians of RUNS. With
// SIGMAD_BENCH_BASELINE=<checkout> (another build's package root, built, 5db3147 or later: it has
// --rule-cache), its one-thread eval and its `--detect-workers 1`, both with a warm cache of their own. On a machine others load, wall-clock says little: the CPU rows estimate an idle machine with a
// free core, whose wall-clock is at least the busier of the main thread and the other threads.
// Run after `npm run build`: `node dist/scripts/bench/eval.js`.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isMain, median, printRows, type BenchRow } from './bench-row.js';
import { processCreationLane } from './lanes.js';
import { cliOf, cpuSeconds, MAIN, ROOT, threadCpuSeconds } from './daemon.js';

const EVENTS = 100_000;
const RUNS = 3;

export interface Run {
  readonly wallMs: number;
  /** CPU of the whole process and of its main thread, read from /proc until it exits. */
  readonly cpuMs: number;
  readonly mainCpuMs: number;
  /**
   * The busiest thread besides main (the chunk worker, in a run that starts one), at its last reading:
   * the rest of `cpuMs` is V8's helper threads (GC, compiler) and libuv's.
   */
  readonly busiestOtherCpuMs: number;
}

/** `node args…` from spawn to exit, its stdout discarded; `env`: the child's environment (this process's by default). */
export function timed(args: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<Run> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] });
    const pid = child.pid as number;
    let cpu = 0;
    let main = 0;
    // By thread id, kept after the thread ends (eval terminates its chunk workers before it exits).
    const threads = new Map<string, number>();
    const sample = (): void => {
      try {
        cpu = cpuSeconds(pid) * 1000;
        main = cpuSeconds(pid, true) * 1000;
        for (const [tid, seconds] of threadCpuSeconds(pid)) if (tid !== String(pid)) threads.set(tid, seconds * 1000);
      } catch {
        // Gone between two samples: the last reading stands (off by at most one interval).
      }
    };
    const poll = setInterval(sample, 20);
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      clearInterval(poll);
      if (code !== 0) return reject(new Error(`exit ${String(code)}: ${stderr}`));
      resolve({ wallMs: performance.now() - started, cpuMs: cpu, mainCpuMs: main, busiestOtherCpuMs: Math.max(0, ...threads.values()) });
    });
  });
}

const PARSE_ONLY = `const fs = require('node:fs');
let n = 0;
for (const line of fs.readFileSync(process.argv[1], 'utf8').split('\\n')) if (line !== '') n += JSON.parse(line) === null ? 0 : 1;
if (n === 0) process.exit(1);`;

export async function runEvalBench(baseline = process.env['SIGMAD_BENCH_BASELINE']): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'sigmad-eval-bench-'));
  try {
    const file = join(dir, 'events.ndjson');
    writeFileSync(file, `${processCreationLane(EVENTS).lines.join('\n')}\n`);
    const evalArgs = (main: string, r: number) => [main, 'eval', '--rules', 'rules/sigmahq/rules', '--pipeline', 'sysmon', '--rule-cache', join(dir, `cache-${String(r)}`), file];
    const parse: Run[] = [];
    const cold: Run[] = [];
    const warm: Run[] = [];
    const auto: Run[] = [];
    const before: Run[] = [];
    const beforeWorker: Run[] = [];
    const baselineArgs = (workers: number) => [cliOf(baseline ?? ''), 'eval', '--rules', 'rules/sigmahq/rules', '--pipeline', 'sysmon', '--rule-cache', join(dir, 'cache-baseline'), '--detect-workers', String(workers), file];
    if (baseline !== undefined) await timed(baselineArgs(0));
    for (let r = 0; r < RUNS; r++) {
      parse.push(await timed(['-e', PARSE_ONLY, file]));
      // A fresh cache directory per run: the first eval compiles and stores, the next ones read it.
      cold.push(await timed([...evalArgs(MAIN, r), '--detect-workers', '0']));
      warm.push(await timed([...evalArgs(MAIN, r), '--detect-workers', '0']));
      auto.push(await timed([...evalArgs(MAIN, r), '--detect-workers', 'auto']));
      if (baseline !== undefined) {
        before.push(await timed(baselineArgs(0)));
        beforeWorker.push(await timed(baselineArgs(1)));
      }
    }
    const of = (runs: readonly Run[], pick: (r: Run) => number): number => Math.round(median(runs.map(pick)));
    const wall = (r: Run) => r.wallMs;
    const ratio = (a: number, b: number): number => Number((a / b).toFixed(2));
    const parseWall = of(parse, wall);
    const parseCpu = of(parse, (r) => r.cpuMs);
    const busiest = of(auto, (r) => Math.max(r.mainCpuMs, r.cpuMs - r.mainCpuMs));
    const lane = (name: string, runs: readonly Run[], note = ''): BenchRow[] => [
      { name: `eval_100k_wall_${name}`, value: of(runs, wall), unit: `ms${note}` },
      { name: `eval_100k_parse_only_over_eval_${name}`, value: ratio(parseWall, of(runs, wall)), unit: 'ratio (target >= 0.4)' },
      { name: `eval_100k_cpu_${name}`, value: of(runs, (r) => r.cpuMs), unit: 'ms CPU' },
      { name: `eval_100k_parse_only_cpu_over_eval_${name}_cpu`, value: ratio(parseCpu, of(runs, (r) => r.cpuMs)), unit: 'ratio (idle-machine estimate)' },
    ];
    return [
      { name: 'eval_100k_read_parse_only_node', value: parseWall, unit: 'ms' },
      { name: 'eval_100k_cpu_read_parse_only_node', value: parseCpu, unit: 'ms CPU' },
      ...lane('one_thread_cold_cache', cold, ' (first run: compiles and stores)'),
      ...lane('one_thread_warm_cache', warm),
      ...lane('auto_warm_cache', auto, ' (--detect-workers auto: main thread and chunk workers)'),
      { name: 'eval_100k_cpu_auto_warm_cache_main_thread', value: of(auto, (r) => r.mainCpuMs), unit: 'ms CPU' },
      { name: 'eval_100k_cpu_auto_warm_cache_chunk_worker', value: of(auto, (r) => r.busiestOtherCpuMs), unit: 'ms CPU' },
      // On 2 cores the CPU of every thread bounds the wall-clock: V8's GC and compiler threads run for each isolate.
      { name: 'eval_100k_cpu_auto_warm_cache_other_threads', value: of(auto, (r) => r.cpuMs - r.mainCpuMs - r.busiestOtherCpuMs), unit: 'ms CPU (V8 helpers, libuv)' },
      { name: 'eval_100k_cpu_one_thread_warm_cache_other_threads', value: of(warm, (r) => r.cpuMs - r.mainCpuMs), unit: 'ms CPU (V8 helpers, libuv)' },
      { name: 'eval_100k_parse_only_cpu_over_eval_auto_busiest_side_cpu', value: ratio(parseCpu, busiest), unit: 'ratio (idle-machine estimate)' },
      ...(before.length > 0 ? [...lane('baseline_one_thread_warm_cache', before), ...lane('baseline_one_worker_warm_cache', beforeWorker, ' (--detect-workers 1)')] : []),
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const EVAL_TITLE = 'One-shot eval (100k events, bundled corpus, from spawn, medians of 3)';

if (isMain(import.meta.url)) printRows(EVAL_TITLE, await runEvalBench());
