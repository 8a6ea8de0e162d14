// `--output file://…?format=ocsf`: the same results as the native sink beside it, as OCSF Detection
// Findings; a restart writes nothing twice; a bad `format` is refused at start-up.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, FIXTURES, ndjson, readNdjson, startDaemon, tempDir, waitFor } from './harness.js';
import type { RunningDaemon } from './harness.js';

beforeAll(ensureBuilt, 180_000);

describe('OCSF line sink', () => {
  const dir = tempDir('ocsf');
  const native = join(dir, 'native.ndjson');
  const ocsf = join(dir, 'ocsf.ndjson');
  const args = [
    '--rules', join(FIXTURES, 'rules'), '--input', 'http', '--input-format', 'json', '--api-addr', '127.0.0.1:0',
    '--state-db', join(dir, 'state'), '--output', `file://${native}`, '--output', `file://${ocsf}?on_full=block&format=ocsf`,
  ];
  let daemon: RunningDaemon | undefined;
  afterAll(async () => {
    daemon?.kill();
    await daemon?.exited;
  });

  const post = async (d: RunningDaemon, events: readonly unknown[]) => {
    expect((await d.json({ method: 'POST', url: '/api/v1/events', body: ndjson(events) })).status).toBe(200);
  };

  it('writes one finding per native result, detections and correlations, keyed by result id', async () => {
    daemon = await startDaemon(args);
    await post(daemon, [1, 2, 3].flatMap((i) => [{ EventID: 4625, Computer: 'h1', '@timestamp': `2024-01-01T00:00:0${i}Z` }, { CommandLine: 'whoami' }]));
    const findings = await waitFor(() => {
      const l = readNdjson(ocsf);
      return l.length >= 4 ? l : undefined;
    });
    const results = readNdjson(native);
    expect(findings.map((f) => (f['metadata'] as { uid: string }).uid)).toEqual(results.map((r) => r['result_id']));
    expect(findings.every((f) => f['class_uid'] === 2004 && f['type_uid'] === 200401 && typeof f['time'] === 'number')).toBe(true);
    expect(findings[0]).toMatchObject({ severity_id: 4, finding_info: { types: ['detection'], analytic: { uid: '6f1a0c1e-0000-4000-8000-000000000001', name: 'Whoami Execution' } } });
    expect(findings[2]).toMatchObject({ severity_id: 3, finding_info: { types: ['correlation'] }, unmapped: { correlation_type: 'event_count', group_key: [['Computer', 'h1']] } });
  });

  it('after a restart appends only new findings', async () => {
    daemon?.kill();
    await daemon?.exited;
    daemon = await startDaemon(args);
    await post(daemon, [{ CommandLine: 'whoami /all' }]);
    const findings = await waitFor(() => {
      const l = readNdjson(ocsf);
      return l.length >= 5 ? l : undefined;
    });
    const uids = findings.map((f) => (f['metadata'] as { uid: string }).uid);
    expect(new Set(uids).size).toBe(uids.length);
    expect(uids).toEqual(readNdjson(native).map((r) => r['result_id']));
  });

  it('refuses an unknown format, a repeated one and format on an OTLP sink (exit 3)', async () => {
    for (const output of [`file://${join(dir, 'x')}?format=cef`, `file://${join(dir, 'x')}?format=ocsf&format=ocsf`, 'otlphttp://127.0.0.1:1?format=ocsf']) {
      const refused = await startDaemon(['--rules', join(FIXTURES, 'rules'), '--api-addr', '127.0.0.1:0', '--output', output], { noWait: true });
      expect(await refused.exited).toBe(3);
      expect(refused.logs.join('\n')).toContain('output');
    }
  });
});

describe('--pretty on an OCSF stdout sink', () => {
  it('writes each finding as indented JSON on stdout', async () => {
    const daemon = await startDaemon(['--rules', join(FIXTURES, 'rules'), '--input', 'http', '--input-format', 'json', '--api-addr', '127.0.0.1:0', '--output', 'stdout?format=ocsf', '--pretty']);
    try {
      await daemon.json({ method: 'POST', url: '/api/v1/events', body: ndjson([{ CommandLine: 'whoami' }]) });
      const text = await waitFor(() => {
        const t = daemon.stdout.join('\n');
        return t.includes('\n}') ? t : undefined;
      });
      expect(text).toMatch(/^\{\n {2}"class_uid": 2004,\n/);
      expect(JSON.parse(text)).toMatchObject({ class_uid: 2004, finding_info: { title: 'Whoami Execution' } });
    } finally {
      daemon.kill();
      await daemon.exited;
    }
  });
});
