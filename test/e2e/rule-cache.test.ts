// The compiled-rule cache across restarts (issue 19 §2): the first start compiles and stores, the second
// builds main's rules from the entry, both workers build from the copy main passes them in shared memory
// (sent instead of the rule texts), a damaged entry file is compiled over, and every start writes the same
// bytes as a daemon without the cache.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, FIXTURES, startDaemon, tempDir, waitFor } from './harness.js';

beforeAll(ensureBuilt, 180_000);

/** Whoami runs and failed logons that build correlations on a few hosts, among noise. */
function input(): string {
  const lines: string[] = [];
  for (let i = 0; i < 2_000; i++) {
    const at = new Date(Date.UTC(2024, 0, 1) + i * 1_000).toISOString();
    if (i % 7 === 0) lines.push(JSON.stringify({ EventID: 4625, Computer: `host-${String(i % 5)}`, '@timestamp': at }));
    else if (i % 11 === 0) lines.push(JSON.stringify({ CommandLine: `whoami /${String(i)}`, '@timestamp': at }));
    else lines.push(JSON.stringify({ CommandLine: 'dir', n: i, '@timestamp': at }));
  }
  return `${lines.join('\n')}\n`;
}

/** One daemon on stdin with two workers and `daemon.state.rule_cache` set to `cache`; its results and logs. */
async function run(cache: string, text: string): Promise<{ out: string; logs: string[] }> {
  const out = join(tempDir('rule-cache-out'), 'out.ndjson');
  const daemon = await startDaemon(
    ['--rules', join(FIXTURES, 'rules'), '--input', 'stdin', '--api-addr', '127.0.0.1:0', '--output', `file://${out}`, '--batch-size', '64', '--detect-workers', '2'],
    { stdin: 'pipe', env: { SVC_STATE__RULE_CACHE: cache } },
  );
  await waitFor(() => (daemon.logs.some((l) => l.includes('detection workers ready')) ? true : undefined), 60_000, 'the workers');
  daemon.proc.stdin?.end(text);
  expect(await daemon.exited).toBe(0);
  return { out: readFileSync(out, 'utf8'), logs: daemon.logs };
}

const cacheOf = (logs: readonly string[]): string[] =>
  logs.flatMap((l) => /"ruleCache":"(\w+)".*"msg":"rules built"|"cache":"(\w+)".*"msg":"detect worker built its rules"/.exec(l)?.slice(1).filter((c) => c !== undefined) ?? []);

/** How each detection worker built its rules: from main's entry or from the texts. */
const fromOf = (logs: readonly string[]): string[] => logs.flatMap((l) => /"from":"(\w+)".*"msg":"detect worker built its rules"/.exec(l)?.slice(1) ?? []);

describe('compiled-rule cache', () => {
  it('a second start builds every thread from the cache and detects exactly what a start without it does', async () => {
    const text = input();
    const dir = join(tempDir('rule-cache'), 'cache');
    const off = await run('false', text);
    const cold = await run(dir, text);
    const warm = await run(dir, text);
    expect(cacheOf(off.logs)).toEqual(['off', 'off', 'off']);
    // Main compiles and stores before the workers start, so they already read the entry.
    expect(cacheOf(cold.logs)).toEqual(['miss', 'shared', 'shared']);
    expect(cacheOf(warm.logs)).toEqual(['hit', 'shared', 'shared']);
    expect(fromOf(off.logs)).toEqual(['texts', 'texts']);
    expect(fromOf(cold.logs)).toEqual(['entry', 'entry']);
    expect(fromOf(warm.logs)).toEqual(['entry', 'entry']);
    const entries = readdirSync(dir).filter((f) => f.endsWith('.rules'));
    expect(entries).toHaveLength(1);
    // A damaged file fails its check: main compiles and stores again, and the workers start from that entry.
    const file = join(dir, entries[0] as string);
    writeFileSync(file, readFileSync(file).fill(0x55, 200, 400));
    const damaged = await run(dir, text);
    expect(cacheOf(damaged.logs)).toEqual(['miss', 'shared', 'shared']);
    expect(fromOf(damaged.logs)).toEqual(['entry', 'entry']);
    expect(off.out).toContain('"correlation_type":"event_count"');
    expect(cold.out).toBe(off.out);
    expect(warm.out).toBe(off.out);
    expect(damaged.out).toBe(off.out);
  }, 180_000);
});
