// Detection on worker threads: the same input gives the same bytes as inline detection, a worker that
// dies is replaced without losing or duplicating anything, and reloads switch workers together.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, FIXTURES, ndjson, readNdjson, startDaemon, tempDir, waitFor } from './harness.js';

beforeAll(ensureBuilt, 180_000);

const RULES = join(FIXTURES, 'rules');

/** Whoami runs, failed logons that build correlations on a few hosts, plain noise and broken lines. */
function input(): string {
  const lines: string[] = [];
  for (let i = 0; i < 3_000; i++) {
    const at = new Date(Date.UTC(2024, 0, 1) + i * 1_000).toISOString();
    if (i % 7 === 0) lines.push(JSON.stringify({ EventID: 4625, Computer: `host-${String(i % 5)}`, '@timestamp': at }));
    else if (i % 11 === 0) lines.push(JSON.stringify({ CommandLine: `whoami /${String(i)}`, '@timestamp': at }));
    else if (i % 97 === 0) lines.push('{broken');
    else lines.push(JSON.stringify({ CommandLine: 'dir', n: i, '@timestamp': at }));
  }
  return `${lines.join('\n')}\n`;
}

async function runStdin(workers: number, text: string, env: Readonly<Record<string, string>> = {}): Promise<{ out: string; logs: string[] }> {
  const dir = tempDir('workers');
  const out = join(dir, 'out.ndjson');
  const daemon = await startDaemon(
    ['--rules', RULES, '--input', 'stdin', '--api-addr', '127.0.0.1:0', '--output', `file://${out}`, '--include-event', '--batch-size', '64', '--detect-workers', String(workers)],
    { stdin: 'pipe', env },
  );
  // Main evaluates until the workers have built their rules: wait for them, so batches reach a worker.
  if (workers > 0) await waitFor(() => (daemon.logs.some((l) => l.includes('detection workers ready')) ? true : undefined), 60_000, 'the workers');
  daemon.proc.stdin?.end(text);
  expect(await daemon.exited).toBe(0);
  return { out: readFileSync(out, 'utf8'), logs: daemon.logs };
}

describe('--detect-workers', () => {
  it('writes byte-identical results with 0 and 2 workers (detections, correlations, --include-event)', async () => {
    const text = input();
    const inline = await runStdin(0, text);
    const workers = await runStdin(2, text);
    expect(inline.out.length).toBeGreaterThan(0);
    expect(inline.out).toContain('"correlation_type":"event_count"');
    expect(inline.out).toContain('"event":{');
    expect(workers.out).toBe(inline.out);
  }, 120_000);

  it('replaces a worker that dies and evaluates its batches again: nothing lost or duplicated', async () => {
    const text = input();
    const inline = await runStdin(0, text);
    const crashed = await runStdin(2, text, { SVC_DETECT_CRASH_AT: '1' });
    expect(crashed.logs.some((l) => l.includes('detect worker exited; restarting it'))).toBe(true);
    expect(crashed.out).toBe(inline.out);
  }, 120_000);

  it('reloads every worker together and keeps them all on the old rules when a reload fails', async () => {
    const dir = tempDir('workers-reload');
    const rules = join(dir, 'rules');
    mkdirSync(rules);
    const rule = (word: string): string => readFileSync(join(RULES, 'whoami.yml'), 'utf8').replace('whoami', word);
    writeFileSync(join(rules, 'r.yml'), rule('whoami'));
    const out = join(dir, 'out.ndjson');
    const daemon = await startDaemon(['--rules', rules, '--input', 'http', '--api-addr', '127.0.0.1:0', '--output', `file://${out}`, '--detect-workers', '2']);
    const metric = async (name: string): Promise<number> =>
      Number(new RegExp(`^${name} (\\d+)`, 'm').exec((await daemon.request({ method: 'GET', url: '/metrics' })).text)?.[1] ?? NaN);
    // Eight one-event requests: batches spread over both workers.
    const postEight = async (cmd: string): Promise<void> => {
      for (let i = 0; i < 8; i++) expect((await daemon.request({ method: 'POST', url: '/api/v1/events', body: ndjson([{ CommandLine: cmd }]) })).status).toBe(200);
    };
    const results = (): number => readNdjson(out).length;
    try {
      await postEight('whoami');
      await waitFor(() => (results() === 8 ? true : undefined), 10_000, 'the first results');
      writeFileSync(join(rules, 'r.yml'), rule('hostname'));
      // The reload has landed once a `hostname` event matches.
      await waitFor(async () => {
        await daemon.request({ method: 'POST', url: '/api/v1/events', body: ndjson([{ CommandLine: 'hostname' }]) });
        await new Promise((r) => setTimeout(r, 100));
        return results() > 8 ? true : undefined;
      }, 15_000, 'the reloaded rule');
      // Every committed detection written out: the base for exact counts.
      const base = await waitFor(async () => {
        const committed = await metric('svc_detection_matches_total');
        return results() === committed ? committed : undefined;
      }, 10_000, 'the sink to catch up');
      await postEight('whoami');
      await postEight('hostname');
      await waitFor(() => (results() === base + 8 ? true : undefined), 10_000, 'results of the new rule only');
      writeFileSync(join(rules, 'r.yml'), 'title: broken\ndetection: [\n');
      await waitFor(async () => ((await daemon.request({ method: 'GET', url: '/readyz' })).status === 503 ? true : undefined), 10_000, 'the failed reload');
      await postEight('hostname');
      await waitFor(() => (results() === base + 16 ? true : undefined), 10_000, 'the old rules to keep matching on every worker');
      expect(readNdjson(out).filter((l) => l['rule_title'] === 'Whoami Execution')).toHaveLength(base + 16);
    } finally {
      daemon.kill();
      await daemon.exited;
    }
  }, 120_000);
});
