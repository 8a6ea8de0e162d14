// Start-up to ready (issue 19 §2): `npm start`'s profile (config/bundled.yaml: bundled corpus, sysmon
// pipeline, `--state-db`, default detection workers) from spawn to `/readyz` 200 and its RSS then,
// against a node process that reads and hashes the same rule files. Each from a fresh process.
// Run after `npm run build`: `node dist/scripts/bench/startup.js`.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isMain, printRows, type BenchRow } from './bench-row.js';
import { MAIN, ROOT } from './daemon.js';

const READ_AND_HASH = `const { createHash } = require('node:crypto');
const { readdirSync, readFileSync } = require('node:fs');
const { join } = require('node:path');
const hash = createHash('sha256');
const walk = (dir) => { for (const e of readdirSync(dir, { withFileTypes: true })) { const p = join(dir, e.name); if (e.isDirectory()) walk(p); else if (/\\.ya?ml$/.test(e.name)) hash.update(readFileSync(p)); } };
walk(process.argv[1]);
process.stdout.write(hash.digest('hex'));`;

function exitMs(args: readonly string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: 'ignore' });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(performance.now() - started) : reject(new Error(`exit ${String(code)}`))));
  });
}

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

/** Spawn → `/readyz` 200 of `npm start`'s profile (state in a fresh directory), and RSS at that moment. */
async function daemonReady(): Promise<{ ms: number; rss: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'sigmad-startup-'));
  const started = performance.now();
  const child = spawn(process.execPath, [MAIN, 'daemon', '--config', 'config/bundled.yaml', '--api-addr', '127.0.0.1:0', '--state-db', dir], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  try {
    const port = await new Promise<number>((done, fail) => {
      let buf = '';
      child.stderr.setEncoding('utf8').on('data', (c: string) => {
        buf += c;
        const m = /"addr":"127\.0\.0\.1:(\d+)","msg":"listening"/.exec(buf);
        if (m?.[1] !== undefined) done(Number(m[1]));
      });
      child.on('exit', (code) => fail(new Error(`daemon exited (${String(code)}):\n${buf.slice(-2000)}`)));
    });
    while ((await readyz(port)) !== 200) await new Promise((r) => setTimeout(r, 20));
    return { ms: performance.now() - started, rss: rssMb(child.pid as number) };
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.on('exit', r));
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function runStartupBench(): Promise<BenchRow[]> {
  const hash = await exitMs(['-e', READ_AND_HASH, join(ROOT, 'rules')]);
  const ready = await daemonReady();
  return [
    { name: 'startup_read_and_hash_rules_node', value: Math.round(hash), unit: 'ms' },
    { name: 'startup_spawn_to_readyz_200', value: Math.round(ready.ms), unit: 'ms' },
    { name: 'startup_ready_over_read_and_hash', value: Number((ready.ms / hash).toFixed(1)), unit: 'ratio (target <= 3)' },
    { name: 'startup_rss_at_ready_two_workers', value: ready.rss, unit: 'MB (target <= 600)' },
  ];
}

export const STARTUP_TITLE = "Start-up (npm start's profile, fresh processes)";

if (isMain(import.meta.url)) printRows(STARTUP_TITLE, await runStartupBench());
