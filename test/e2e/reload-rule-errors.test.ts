// A reload whose rule files have a parse or compile error fails (interface.md readiness table): the
// failed-reload counter moves, /readyz answers 503 with the reason, the previous rules keep matching,
// and the next good reload makes the daemon ready again.
import { cpSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, FIXTURES, ndjson, readNdjson, startDaemon, tempDir, waitFor } from './harness.js';
import type { RunningDaemon } from './harness.js';

const MISSING_SELECTION = `title: Names A Missing Selection
id: 6f1a0c1e-0000-4000-8000-00000000000a
logsource: {product: windows}
detection:
  selection:
    CommandLine|contains: hostname
  condition: selection and not filter
`;

beforeAll(ensureBuilt, 180_000);

describe('reload with broken rule files', () => {
  let daemon: RunningDaemon;
  let rules: string;
  let out: string;

  const metric = async (name: string): Promise<number> => {
    const text = (await daemon.request({ method: 'GET', url: '/metrics' })).text;
    return Number(new RegExp(`^${name} (\\d+)`, 'm').exec(text)?.[1] ?? NaN);
  };
  const whoamis = () => readNdjson(out).filter((l) => l['rule_title'] === 'Whoami Execution').length;

  /** Drop `file` into the rules, wait for the failed reload, check readiness and that old rules serve, then remove it. */
  async function failsThenRecovers(file: string, text: string, reason: RegExp): Promise<void> {
    const [reloads, failed] = [await metric('svc_reloads_total'), await metric('svc_reloads_failed_total')];
    writeFileSync(join(rules, file), text);
    await waitFor(async () => ((await metric('svc_reloads_failed_total')) > failed ? true : undefined), 10_000, 'a failed reload');
    expect(await metric('svc_reloads_total')).toBeGreaterThan(reloads);
    const ready = await daemon.json({ method: 'GET', url: '/readyz' });
    expect(ready.status).toBe(503);
    expect(ready.body).toMatchObject({ status: 'starting', rules_loaded: false, error: 'reload failed' });
    expect(String(ready.body['reason'])).toMatch(reason);
    expect((await daemon.json({ method: 'GET', url: '/api/v1/rules' })).body['detection_rules']).toBe(2);
    const before = whoamis();
    await daemon.request({ method: 'POST', url: '/api/v1/events', body: ndjson([{ CommandLine: 'whoami' }]) });
    await waitFor(() => (whoamis() === before + 1 ? true : undefined), 10_000, 'the previous rules to match');
    rmSync(join(rules, file));
    await waitFor(async () => ((await daemon.request({ method: 'GET', url: '/readyz' })).status === 200 ? true : undefined), 10_000, 'ready again');
    expect(await metric('svc_reloads_failed_total')).toBe(failed + 1);
  }

  beforeAll(async () => {
    const dir = tempDir('reload-errors');
    rules = join(dir, 'rules');
    cpSync(join(FIXTURES, 'rules'), rules, { recursive: true });
    out = join(dir, 'out.ndjson');
    daemon = await startDaemon(['--rules', rules, '--input', 'http', '--api-addr', '127.0.0.1:0', '--output', `file://${out}`]);
  });
  afterAll(async () => {
    daemon.kill();
    await daemon.exited;
  });

  it('fails on a rule file that is not YAML, and recovers once it is gone', async () => {
    await failsThenRecovers('broken.yml', 'title: broken\ndetection: [\n', /1 rule problem: .*broken\.yml/);
  }, 40_000);

  it('fails on a rule whose condition names a missing selection, and recovers once it is gone', async () => {
    await failsThenRecovers('missing.yml', MISSING_SELECTION, /missing\.yml.*filter/);
  }, 40_000);
});
