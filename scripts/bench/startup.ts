// Start-up to ready (issue 19 §2): `npm start`'s profile (config/bundled.yaml: bundled corpus, sysmon
// pipeline, `--state-db`, default detection workers) from spawn to `/readyz` 200 and its RSS then, and
// to the moment its detection workers have built their rules (main evaluates until then) and its RSS
// then, against a node process that reads and hashes the same rule files. Each from a fresh process,
// read-and-hash and daemon alternating, medians. Every run makes three kinds of start: first (the profile
// on an empty state directory, as after `npm ci`: it reads the compiled-rule entry the build made for it,
// scripts/build/bundled-rule-entry.ts), cold (the same rules named by their absolute path, a key no entry
// holds: it compiles and stores, as after editing a rule) and then WARM times warm on the first start's
// state directory (every later start of the profile).
// Both sides of the ratio include node's own start-up, which the environment can make several times longer:
// NODE_EXTRA_CA_CERTS makes node load a root store (and that file) before any script runs. So each run also
// times `node -e 0` as spawned here (and without that variable when it is set), and the ratios are repeated
// with node's start taken off both sides.
// A breakdown of the path to ready comes from the daemon's own log lines (their `time` against the spawn
// instant): module loading and config (spawn → reading the rule files), reading the rule files, finding and
// checking the compiled-rule cache entry, building the rule set from it (or compiling), and the moment
// the main thread can evaluate (`detection ready`).
// Run after `npm run build`: `node dist/scripts/bench/startup.js`. With SIGMAD_BENCH_BASELINE=<checkout>
// (another build's package root, built), that build's cold and warm starts are measured in the same runs, interleaved.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isMain, median, printRows, type BenchRow } from './bench-row.js';
import { cliOf, cpuSeconds, ROOT } from './daemon.js';
import { timed, type Run } from './eval.js';

const READ_AND_HASH = `const { createHash } = require('node:crypto');
const { readdirSync, readFileSync } = require('node:fs');
const { join } = require('node:path');
const hash = createHash('sha256');
const walk = (dir) => { for (const e of readdirSync(dir, { withFileTypes: true })) { const p = join(dir, e.name); if (e.isDirectory()) walk(p); else if (/\\.ya?ml$/.test(e.name)) hash.update(readFileSync(p)); } };
walk(process.argv[1]);
process.stdout.write(hash.digest('hex'));`;

function readyz(port: number): Promise<number> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/readyz' }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', () => resolve(0));
    req.end();
  });
}

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${String(pid)}/status`, 'utf8'));
  return m?.[1] === undefined ? Number.NaN : Math.round(Number(m[1]) / 1024);
}

// `SIGMAD_BENCH_STARTUP_RUNS` for more (the wall-clock figures move by several ms from start to start).
const RUNS = Number(process.env['SIGMAD_BENCH_STARTUP_RUNS'] ?? 3);
/** Warm starts per cold one (`SIGMAD_BENCH_STARTUP_WARM`): the warm figures are the target's, and cheaper. */
const WARM = Number(process.env['SIGMAD_BENCH_STARTUP_WARM'] ?? 1);
const POLL_MS = 20;

interface Startup {
  /** Spawn → `/readyz` 200, and RSS then. */
  readonly readyMs: number;
  readonly readyRss: number;
  /** CPU until ready: the main thread's (what an idle machine waits for) and the process's. */
  readonly readyMainCpuMs: number;
  readonly readyCpuMs: number;
  /** Spawn → the workers took over detection, and RSS then (the whole process, two workers). */
  readonly workersMs: number;
  readonly workersRss: number;
  /** The breakdown (NaN where a build does not log it). */
  readonly phases: Phases;
}

interface Phases {
  /** Spawn → the rule files are read: node start-up, module loading, config. */
  readonly modulesMs: number;
  readonly readMs: number;
  /** Key, read and check of the cache entry. */
  readonly entryMs: number;
  /** The rule set from the entry (or the compile, cold). */
  readonly buildMs: number;
  /** Spawn → the main thread can evaluate. */
  readonly evaluateMs: number;
  /** Spawn → the `daemon ready` log line (the API opened just before it). */
  readonly readyLogMs: number;
}

/** The breakdown out of the daemon's log, `spawned` being the spawn instant (epoch ms, as pino's `time`). */
function phasesOf(log: string, spawned: number): Phases {
  const line = (msg: string): Record<string, unknown> => {
    const text = log.split('\n').find((l) => l.includes(`"msg":"${msg}"`));
    return text === undefined ? {} : (JSON.parse(text) as Record<string, unknown>);
  };
  const num = (v: unknown): number => (typeof v === 'number' ? v : Number.NaN);
  const built = line('rules built');
  const builtAt = num(built['time']) - spawned;
  const ms = num(built['ms']);
  const readMs = num(built['readMs']);
  const entryMs = num(built['entryMs']);
  return { modulesMs: builtAt - ms - readMs, readMs, entryMs, buildMs: ms - entryMs, evaluateMs: num(line('detection ready')['time']) - spawned, readyLogMs: num(line('daemon ready')['time']) - spawned };
}

/**
 * `npm start`'s profile of the build in `root`, state in `dir`, from spawn to ready and to its workers loaded;
 * `cold`: its rules named by their absolute path, which no compiled-rule entry is stored under.
 */
async function daemonStartup(dir: string, root = ROOT, cold = false): Promise<Startup> {
  const started = performance.now();
  const spawned = Date.now();
  const main = cliOf(root);
  const rules = cold ? ['--rules', join(root, 'rules')] : [];
  const child = spawn(process.execPath, [main, 'daemon', '--config', 'config/bundled.yaml', ...rules, '--api-addr', '127.0.0.1:0', '--state-db', dir], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  // `/readyz` is asked every POLL_MS and at once when the daemon logs that it is ready: the poll's period no
  // longer adds up to itself to the figure (it did before the tenth wave: ≈ POLL_MS / 2 on average).
  let readyLogged = false;
  let wake: (() => void) | undefined;
  let workersLoaded: (ms: number) => void = () => undefined;
  let workersFailed: (error: Error) => void = () => undefined;
  const workers = new Promise<number>((done, fail) => {
    workersLoaded = done;
    workersFailed = fail;
  });
  // Awaited only after ready: a failure before then must not count as unhandled.
  workers.catch(() => undefined);
  try {
    const port = await new Promise<number>((done, fail) => {
      child.stderr.setEncoding('utf8').on('data', (c: string) => {
        log += c;
        const m = /"addr":"127\.0\.0\.1:(\d+)","msg":"listening"/.exec(log);
        if (m?.[1] !== undefined) done(Number(m[1]));
        if (!readyLogged && log.includes('"msg":"daemon ready"')) {
          readyLogged = true;
          wake?.();
        }
        if (log.includes('"msg":"detection workers ready')) workersLoaded(performance.now() - started);
        // A worker that fails to start is never restarted, so its "ready" never comes: fail, not wait forever.
        if (log.includes('"msg":"detect worker exited')) workersFailed(new Error(`a detection worker exited:\n${log.slice(-2000)}`));
      });
      child.on('exit', (code) => {
        const error = new Error(`daemon exited (${String(code)}):\n${log.slice(-2000)}`);
        fail(error);
        workersFailed(error);
      });
    });
    // Once the log said ready, the next poll is immediate; one that still gets no 200 waits a period again.
    for (let early = false; (await readyz(port)) !== 200; ) {
      if (readyLogged && !early) early = true;
      else await new Promise<void>((r) => ((wake = r), setTimeout(r, POLL_MS)));
    }
    const readyMs = performance.now() - started;
    const readyRss = rssMb(child.pid as number);
    const readyMainCpuMs = cpuSeconds(child.pid as number, true) * 1000;
    const readyCpuMs = cpuSeconds(child.pid as number) * 1000;
    const workersMs = await workers;
    return { readyMs, readyRss, readyMainCpuMs, readyCpuMs, workersMs, workersRss: rssMb(child.pid as number), phases: phasesOf(log, spawned) };
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.on('exit', r));
  }
}

/** Fresh state directories for `fn`, as many as it asks for (removed after it). */
async function inStateDirs<T>(fn: (fresh: () => string) => Promise<T>): Promise<T> {
  // No dot in the name: LMDB takes a path with an extension for a file.
  const dir = mkdtempSync(join(tmpdir(), 'sigmad-startup-'));
  let n = 0;
  try {
    return await fn(() => join(dir, `state${String(n++)}`));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The read-and-hash process and a process that only starts node, spawned the same way (medians, ms). */
interface Baselines {
  readonly hash: number;
  readonly hashCpu: number;
  readonly node: number;
}

function startupRows(prefix: string, runs: readonly Startup[], { hash, hashCpu, node }: Baselines): BenchRow[] {
  const of = (pick: (s: Startup) => number): number => Math.round(median(runs.map(pick)));
  return [
    { name: `${prefix}spawn_to_readyz_200`, value: of((s) => s.readyMs), unit: 'ms' },
    { name: `${prefix}ready_over_read_and_hash`, value: Number((of((s) => s.readyMs) / hash).toFixed(1)), unit: 'ratio (target <= 3)' },
    { name: `${prefix}ready_over_read_and_hash_past_node_start`, value: Number(((of((s) => s.readyMs) - node) / (hash - node)).toFixed(1)), unit: 'ratio (node -e 0 taken off both)' },
    { name: `${prefix}rss_at_ready`, value: of((s) => s.readyRss), unit: 'MB' },
    { name: `${prefix}cpu_to_ready_all_threads`, value: of((s) => s.readyCpuMs), unit: 'ms CPU' },
    { name: `${prefix}cpu_to_ready_main_thread`, value: of((s) => s.readyMainCpuMs), unit: 'ms CPU' },
    { name: `${prefix}main_thread_cpu_to_ready_over_read_and_hash_cpu`, value: Number((of((s) => s.readyMainCpuMs) / hashCpu).toFixed(1)), unit: 'ratio (idle-machine estimate)' },
    { name: `${prefix}spawn_to_two_workers_detecting`, value: of((s) => s.workersMs), unit: 'ms' },
    { name: `${prefix}workers_detecting_over_read_and_hash`, value: Number((of((s) => s.workersMs) / hash).toFixed(1)), unit: 'ratio' },
    { name: `${prefix}rss_two_workers_detecting`, value: of((s) => s.workersRss), unit: 'MB (target <= 600)' },
    ...breakdownRows(`${prefix}phase_`, runs),
  ];
}

/** The path to ready in phases (medians), left out where the build does not log them. */
function breakdownRows(prefix: string, runs: readonly Startup[]): BenchRow[] {
  const phase = (name: string, unit: string, pick: (p: Phases) => number): BenchRow => ({ name: `${prefix}${name}`, value: Math.round(median(runs.map((s) => pick(s.phases)))), unit });
  return [
    phase('spawn_to_rule_read', 'ms (node start-up, module loading, config)', (p) => p.modulesMs),
    phase('rule_files_read', 'ms', (p) => p.readMs),
    phase('cache_entry_read', 'ms (key, read, check)', (p) => p.entryMs),
    phase('rule_set_build', 'ms (from the entry: deserialise, index; cold: compile and store)', (p) => p.buildMs),
    phase('spawn_to_first_evaluation_possible', 'ms', (p) => p.evaluateMs),
    phase('spawn_to_daemon_ready_log_line', 'ms', (p) => p.readyLogMs),
  ].filter((row) => Number.isFinite(row.value));
}

export async function runStartupBench(baseline = process.env['SIGMAD_BENCH_BASELINE']): Promise<BenchRow[]> {
  const hashes: Run[] = [];
  const nodes: Run[] = [];
  const bareNodes: Run[] = [];
  const { NODE_EXTRA_CA_CERTS: extraCa, ...withoutExtraCa } = process.env;
  const starts = { first: [] as Startup[], cold: [] as Startup[], warm: [] as Startup[] };
  const before = { first: [] as Startup[], cold: [] as Startup[], warm: [] as Startup[] };
  const hashed = async (): Promise<void> => {
    hashes.push(await timed(['-e', READ_AND_HASH, join(ROOT, 'rules')]));
    nodes.push(await timed(['-e', '0']));
    if (extraCa !== undefined) bareNodes.push(await timed(['-e', '0'], withoutExtraCa));
  };
  // Each run: a first and a cold start of each build on fresh state directories, then WARM warm starts of
  // each on its first start's, the builds alternating and a read-and-hash before each pair (so that all three
  // see the same load).
  for (let r = 0; r < RUNS; r++) {
    await inStateDirs(async (fresh) => {
      const [mine, theirs] = [fresh(), fresh()];
      await hashed();
      starts.first.push(await daemonStartup(mine));
      if (baseline !== undefined) before.first.push(await daemonStartup(theirs, baseline));
      await hashed();
      starts.cold.push(await daemonStartup(fresh(), ROOT, true));
      if (baseline !== undefined) before.cold.push(await daemonStartup(fresh(), baseline, true));
      for (let w = 0; w < WARM; w++) {
        await hashed();
        starts.warm.push(await daemonStartup(mine));
        if (baseline !== undefined) before.warm.push(await daemonStartup(theirs, baseline));
      }
    });
  }
  const base: Baselines = { hash: median(hashes.map((h) => h.wallMs)), hashCpu: median(hashes.map((h) => h.cpuMs)), node: median(nodes.map((n) => n.wallMs)) };
  const kinds = ['first', 'cold', 'warm'] as const;
  return [
    { name: 'startup_read_and_hash_rules_node', value: Math.round(base.hash), unit: 'ms' },
    { name: 'startup_cpu_read_and_hash_rules_node', value: Math.round(base.hashCpu), unit: 'ms CPU' },
    { name: 'startup_node_alone', value: Math.round(base.node), unit: `ms (node -e 0${extraCa !== undefined ? ', NODE_EXTRA_CA_CERTS set' : ''})` },
    ...(bareNodes.length > 0 ? [{ name: 'startup_node_alone_without_extra_ca_certs', value: Math.round(median(bareNodes.map((n) => n.wallMs))), unit: 'ms' }] : []),
    ...kinds.flatMap((k) => startupRows(`startup_${k}_`, starts[k], base)),
    ...kinds.flatMap((k) => (before[k].length > 0 ? startupRows(`startup_baseline_${k}_`, before[k], base) : [])),
  ];
}

export const STARTUP_TITLE = `Start-up (npm start's profile, fresh processes, medians of ${String(RUNS)} first, ${String(RUNS)} cold and ${String(RUNS * WARM)} warm starts)`;

if (isMain(import.meta.url)) printRows(STARTUP_TITLE, await runStartupBench());
