// Schema routing and the field/schema observers on detection workers (issue 16): the same events give
// the same detections (bytes), the same observer reports and discovery suggestions, and the same
// unknown-event accounting on a daemon whose batches all run on workers as on one evaluating inline.
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { FIXTURES, ndjson, readNdjson, startDaemon, tempDir, waitFor } from './harness.js';
import type { RunningDaemon } from './harness.js';
import { writeRoutingConfig } from './schema-routing-fixture.js';

const SYSMON = { Channel: 'Microsoft-Windows-Sysmon/Operational', EventID: 1 };
const ECS = { ecs: { version: '8.11.0' }, host: { os: { type: 'linux' } } };
/** Per round: each schema's hit and miss, the default set, a shape only the catch-all claims, an unknown event and a plain line. */
const round = (n: number): unknown[] => [
  { ...SYSMON, Computer: `h${n}`, CommandLine: 'whoami /all' },
  { ...SYSMON, Computer: `h${n}`, CommandLine: 'ls', process: { command_line: 'whoami' } },
  { ...ECS, Computer: `h${n}`, CommandLine: 'ls', process: { command_line: 'whoami' } },
  { ...ECS, Computer: `h${n}`, 'process.command_line': 'whoami', process: { command_line: 'whoami' } },
  { acme: { tenant: `t${n}` }, Computer: `h${n}`, CommandLine: 'whoami' },
  { Computer: `h${n}`, process: { command_line: 'whoami' } },
  { widget_id: n, widget_color: 'red' },
  {},
];
const ROUNDS = 6;

async function metric(daemon: RunningDaemon, name: string): Promise<number> {
  const text = (await daemon.request({ method: 'GET', url: '/metrics' })).text;
  return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
}

it('gives the same detections, observer reports and suggestions with routing on workers as inline', async () => {
  const dir = tempDir('workers-routing');
  const rules = join(dir, 'rules');
  cpSync(join(FIXTURES, 'rules'), rules, { recursive: true });
  const { config } = writeRoutingConfig(dir);
  const start = (workers: number) =>
    startDaemon([
      '--rules', rules, '--input', 'http', '--api-addr', '127.0.0.1:0', '--output', `file://${join(dir, `out-${workers}.ndjson`)}`, '--include-event',
      '--detect-workers', String(workers), '--schema-routing', '--schema-config', config, '--logsource-routing',
      '--observe-fields', '--observe-fields-max-keys', '9', '--discover-schemas',
    ]);
  const daemons = await Promise.all([start(2), start(0)]);
  try {
    const [pooled] = daemons as [RunningDaemon, RunningDaemon];
    // Every batch below runs on the workers.
    await waitFor(() => (pooled.logs.some((l) => l.includes('detection workers ready')) ? true : undefined), 30_000, 'the detection workers');
    const events = Array.from({ length: ROUNDS }, (_, n) => round(n)).flat();
    for (const daemon of daemons) {
      for (let n = 0; n < ROUNDS; n += 2) {
        const body = ndjson(events.slice(n * 8, (n + 2) * 8)) + 'a plain line\n';
        expect((await daemon.request({ method: 'POST', url: '/api/v1/events', body })).status).toBe(200);
      }
    }
    const total = events.length + ROUNDS / 2;
    const seen = await Promise.all(
      daemons.map(async (daemon) => {
        await waitFor(async () => ((await metric(daemon, 'svc_fields_observed_total')) === total ? true : undefined), 15_000, 'every event observed');
        const get = async (url: string) => (await daemon.json({ method: 'GET', url })).body;
        const fields = await get('/api/v1/fields');
        const schemas = await get('/api/v1/schemas');
        delete (fields['summary'] as Record<string, unknown>)['uptime_seconds'];
        delete (schemas['summary'] as Record<string, unknown>)['uptime_seconds'];
        const out = join(dir, `out-${daemon === pooled ? 2 : 0}.ndjson`);
        // Each round: the sysmon, both ecs, the alias and the default hits of the whoami rule.
        const detections = await waitFor(() => {
          const lines = readNdjson(out);
          return lines.filter((l) => l['rule_title'] === 'Whoami Execution').length === ROUNDS * 5 ? lines : undefined;
        }, 15_000, 'the detections');
        return { fields, schemas, suggestions: await get('/api/v1/schemas/suggestions'), detections, pruned: await metric(daemon, 'svc_rules_pruned_by_logsource_total') };
      }),
    );
    const [onWorkers, inline] = seen as [(typeof seen)[number], (typeof seen)[number]];
    expect(onWorkers).toEqual(inline);
    expect(inline.schemas['summary']).toMatchObject({ events_observed: total, unknown: ROUNDS + ROUNDS / 2 });
    // The flat and nested `process.command_line` of one event count once.
    const unknown = (await daemons[1]?.json({ method: 'GET', url: '/api/v1/fields/unknown?limit=1000' }))?.body['items'] as { field: string; count: number }[];
    expect(unknown.find((i) => i.field === 'process.command_line')?.count).toBe(ROUNDS * 4);
    expect((inline.suggestions['summary'] as Record<string, number>)['candidates']).toBeGreaterThan(0);
    expect(pooled.logs.filter((l) => l.includes('unclassified event evaluated against the default pipelines'))).toHaveLength(1);
  } finally {
    for (const d of daemons) d.kill();
    await Promise.all(daemons.map((d) => d.exited));
  }
}, 90_000);
