// `sigmad eval --detect-workers N` and `--rule-cache`: the same output bytes and summary as evaluating on
// one thread without the cache.
import { execFile } from 'node:child_process';
import { readdirSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { evalRuleCacheDir } from '../../cli/eval-rule-cache.js';
import { evalWorkerCount } from '../../cli/eval-workers.js';
import { ensureBuilt, FIXTURES, MAIN, tempDir } from '../e2e/harness.js';
import { evalInput } from './eval-input.js';

beforeAll(ensureBuilt, 180_000);

function run(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string[] }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [MAIN, 'eval', ...args], { maxBuffer: 256 << 20 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
      resolve({ code, stdout, stderr: stderr.split('\n').filter((l) => l !== '') });
    });
  });
}

/** The summary without its timings, which differ from run to run. */
function counts(stderr: readonly string[]): Record<string, number> {
  const { load_ms: _load, eval_ms: _eval, ...rest } = JSON.parse(stderr.at(-1) as string) as Record<string, number>;
  return rest;
}

const RULES = join(FIXTURES, 'rules');

describe('sigmad eval with detection workers', () => {
  it('writes the same bytes in the same order as a single-threaded run, and the same summary', async () => {
    const file = join(tempDir('eval-workers'), 'events.ndjson');
    writeFileSync(file, evalInput(6_000, { pretty: true }));
    const flags = ['--rules', RULES, '--input-format', 'json', '--include-event', '--correlation-event-mode', 'full', file];
    const [one, two] = await Promise.all([run(['--detect-workers', '0', ...flags]), run(['--detect-workers', '2', ...flags])]);
    expect([one.code, two.code]).toEqual([0, 0]);
    const out = one.stdout.split('\n');
    expect(out.filter((l) => l.includes('"correlation_type"')).length).toBeGreaterThan(100);
    // 1,200 whoami lines of which 23 do not parse (i % 5 = 0 and i % 53 = 52), and two pretty-printed objects.
    expect(out.filter((l) => l.includes('Whoami Execution')).length).toBe(1_200 - 23 + 2);
    expect(two.stdout).toBe(one.stdout);
    expect(counts(two.stderr)).toEqual(counts(one.stderr));
    expect(counts(one.stderr)).toMatchObject({ events: 6_000 - 113 + 2, parse_errors: 113 });
  }, 120_000);

  it('auto: one worker per core besides this thread (at most 4) from 32 MiB; none below, for stdin or on one core', () => {
    const dir = tempDir('eval-workers-auto');
    const sized = (name: string, bytes: number): string => {
      const file = join(dir, name);
      writeFileSync(file, '');
      truncateSync(file, bytes);
      return file;
    };
    const big = sized('big.ndjson', 32 * 1024 * 1024);
    const small = sized('small.ndjson', 32 * 1024 * 1024 - 1);
    expect([2, 3, 8].map((cores) => evalWorkerCount('auto', big, cores))).toEqual([1, 2, 4]);
    expect(evalWorkerCount(undefined, big, 1)).toBe(0);
    expect(evalWorkerCount('auto', small, 8)).toBe(0);
    expect(evalWorkerCount('auto', '-', 8)).toBe(0);
    expect(evalWorkerCount('3', small, 1)).toBe(3);
  });

  it('--rule-cache: a first run stores the compiled rules, later ones (workers too) read them, and all write the bytes of a run without it', async () => {
    const dir = tempDir('eval-rule-cache');
    const file = join(dir, 'events.ndjson');
    writeFileSync(file, evalInput(1_000, { pretty: true }));
    const cache = join(dir, 'cache');
    const flags = ['--rules', RULES, '--include-event', '--correlation-event-mode', 'full', file];
    const off = await run(['--rule-cache', 'off', '--detect-workers', '0', ...flags]);
    expect(off.code).toBe(0);
    const cold = await run(['--rule-cache', cache, '--detect-workers', '2', ...flags]);
    const entries = readdirSync(cache);
    expect(entries).toHaveLength(1);
    const stored = statSync(join(cache, entries[0] as string));
    const warm = await Promise.all([run(['--rule-cache', cache, '--detect-workers', '2', ...flags]), run(['--rule-cache', cache, '--detect-workers', '0', ...flags])]);
    for (const r of [cold, ...warm]) {
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(off.stdout);
      expect(counts(r.stderr)).toEqual(counts(off.stderr));
    }
    // The warm runs read the entry: a miss would have stored it again.
    expect(readdirSync(cache)).toEqual(entries);
    expect(statSync(join(cache, entries[0] as string)).mtimeMs).toBe(stored.mtimeMs);
  }, 120_000);

  it('--rule-cache defaults to a per-user directory and turns off with off', () => {
    expect(evalRuleCacheDir(undefined, { XDG_CACHE_HOME: '/x/cache' }, '/home/u')).toBe('/x/cache/sigmad/rule-cache');
    expect(evalRuleCacheDir(undefined, {}, '/home/u')).toBe('/home/u/.cache/sigmad/rule-cache');
    expect(evalRuleCacheDir(undefined, { XDG_CACHE_HOME: 'relative' }, '/home/u')).toBe('/home/u/.cache/sigmad/rule-cache');
    expect(evalRuleCacheDir('/elsewhere', {}, '/home/u')).toBe('/elsewhere');
    expect(evalRuleCacheDir('off', {}, '/home/u')).toBeUndefined();
  });

  it('refuses a --detect-workers that is not a count or auto', async () => {
    const r = await run(['--rules', RULES, '--detect-workers', 'many', join(FIXTURES, 'empty.yaml')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toEqual([expect.stringMatching(/--detect-workers must be a non-negative integer or auto/)]);
  });
});
