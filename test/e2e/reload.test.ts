// Hot reload through a file change, SIGHUP and the API; a failed reload (readyz 503, the previous
// rules keep matching); correlation state of unchanged correlations survives a reload.
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, FIXTURES, ndjson, readNdjson, startDaemon, tempDir, waitFor } from './harness.js';
import type { RunningDaemon } from './harness.js';

const PIPELINE_OK = 'name: passthrough\npriority: 10\ntransformations:\n  - id: tag_only\n    type: set_custom_attribute\n    attribute: origin\n    value: test\n';

const NET_RULE = `title: Net Execution
id: 6f1a0c1e-0000-4000-8000-000000000009
level: medium
logsource:
  product: windows
  category: process_creation
detection:
  selection:
    Image|endswith: '\\\\net.exe'
  condition: selection
`;

// Build dist/ (when stale) outside the tests' own time budgets.
beforeAll(ensureBuilt, 180_000);

describe('hot reload', () => {
  let daemon: RunningDaemon;
  let rules: string;
  let pipeline: string;
  let out: string;

  const metric = async (name: string): Promise<number> => {
    const text = (await daemon.request({ method: 'GET', url: '/metrics' })).text;
    return Number(new RegExp(`^${name} (\\d+)`, 'm').exec(text)?.[1] ?? NaN);
  };
  const reloadsAbove = (n: number) => waitFor(async () => ((await metric('svc_reloads_total')) > n ? true : undefined), 10_000, 'a reload');
  const detectionsOf = (title: string) => readNdjson(out).filter((l) => l['rule_title'] === title).length;

  beforeAll(async () => {
    const dir = tempDir('reload');
    rules = join(dir, 'rules');
    cpSync(join(FIXTURES, 'rules'), rules, { recursive: true });
    pipeline = join(dir, 'pipelines', 'passthrough.yml');
    mkdirSync(join(dir, 'pipelines'));
    writeFileSync(pipeline, PIPELINE_OK);
    out = join(dir, 'out.ndjson');
    daemon = await startDaemon(['--rules', rules, '--pipeline', pipeline, '--input', 'http', '--api-addr', '127.0.0.1:0', '--output', `file://${out}`]);
  });
  afterAll(async () => {
    daemon.kill();
    await daemon.exited;
  });

  it('picks up a new rule file without a restart', async () => {
    writeFileSync(join(rules, 'net.yml'), NET_RULE);
    await waitFor(async () => ((await daemon.json({ method: 'GET', url: '/api/v1/status' })).body['detection_rules'] === 3 ? true : undefined), 10_000, 'the new rule');
    await daemon.request({ method: 'POST', url: '/api/v1/events', body: ndjson([{ Image: 'C:\\Windows\\System32\\net.exe' }]) });
    await waitFor(() => (detectionsOf('Net Execution') === 1 ? true : undefined));
  });

  it('reloads on SIGHUP', async () => {
    const before = await metric('svc_reloads_total');
    daemon.kill('SIGHUP');
    await reloadsAbove(before);
  });

  it('reloads on POST /api/v1/reload and keeps the state of unchanged correlations', async () => {
    const logon = (s: number) => ({ EventID: 4625, Computer: 'keep', '@timestamp': `2024-02-01T00:00:0${s}Z` });
    await daemon.request({ method: 'POST', url: '/api/v1/events', body: ndjson([logon(1), logon(2)]) });
    const before = await metric('svc_reloads_total');
    expect((await daemon.json({ method: 'POST', url: '/api/v1/reload' })).status).toBe(200);
    await reloadsAbove(before);
    await daemon.request({ method: 'POST', url: '/api/v1/events', body: ndjson([logon(3)]) });
    await waitFor(() => (detectionsOf('Many Failed Logons On One Host') === 1 ? true : undefined), 10_000, 'the correlation across the reload');
  });

  it('reports not ready after a failed reload while the previous rules keep matching, and recovers', async () => {
    const failedBefore = await metric('svc_reloads_failed_total');
    writeFileSync(pipeline, 'transformations: [ {\n');
    await waitFor(async () => ((await metric('svc_reloads_failed_total')) > failedBefore ? true : undefined), 10_000, 'a failed reload');
    const ready = await daemon.json({ method: 'GET', url: '/readyz' });
    expect(ready.status).toBe(503);
    const whoamiBefore = detectionsOf('Whoami Execution');
    await daemon.request({ method: 'POST', url: '/api/v1/events', body: ndjson([{ CommandLine: 'whoami' }]) });
    await waitFor(() => (detectionsOf('Whoami Execution') === whoamiBefore + 1 ? true : undefined));
    writeFileSync(pipeline, PIPELINE_OK);
    await waitFor(async () => ((await daemon.json({ method: 'GET', url: '/readyz' })).status === 200 ? true : undefined), 10_000, 'ready again');
  });
});
