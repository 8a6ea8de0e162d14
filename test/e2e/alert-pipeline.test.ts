// Issue 13 end to end on the real daemon: an alert pipeline with all four stages (inhibition,
// silences created over the API, dedup with repeat/resolved summaries, incidents emitted at
// group_wait, group_interval, repeat and resolved), the incident routes and bundle, every §9.12
// metric moving, a hot reload and a failed one, and the start-up errors of a bad pipeline file.
import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, FIXTURES, ndjson, readNdjson, startDaemon, tempDir, waitFor } from './harness.js';
import type { RunningDaemon } from './harness.js';

const WHOAMI = '6f1a0c1e-0000-4000-8000-000000000001';
const whoami = (host: string, cmd = 'whoami') => ({ EventID: 1, CommandLine: cmd, Computer: host });
const failedLogon = (host: string) => ({ EventID: 4625, Computer: host });

function metric(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? Number.NaN : Number(line.slice(series.length + 1));
}

describe('alert pipeline on the real daemon', () => {
  const dir = tempDir('alerts');
  const out = join(dir, 'out.ndjson');
  const pipelineFile = join(dir, 'alerts.yaml');
  let d: RunningDaemon;
  const post = (events: readonly unknown[]) => d.json({ method: 'POST', url: '/api/v1/events', body: ndjson(events) });
  const scrape = async () => (await d.request({ method: 'GET', url: '/metrics' })).text;
  const lines = () => readNdjson(out);
  const emitted = (pred: (l: Record<string, unknown>) => boolean, what: string) => waitFor(() => lines().find(pred), 20_000, what);

  beforeAll(async () => {
    copyFileSync(join(FIXTURES, 'alert-pipeline.yaml'), pipelineFile);
    d = await startDaemon([
      '--rules', join(FIXTURES, 'rules'), '--input', 'http', '--api-addr', '127.0.0.1:0', '--include-event', '--emit-referenced',
      '--alert-pipeline', pipelineFile, '--output', `file://${out}`, '--state-db', join(dir, 'state'), '--detect-workers', '0',
    ]);
  }, 60_000);
  afterAll(async () => {
    d.kill();
    await d.exited;
  });

  it('inhibits, silences, folds, groups and emits every trigger; serves incidents and bundles; moves every metric', async () => {
    const before = await scrape();
    expect(metric(before, 'svc_incidents_emitted_total{trigger="group_wait"}')).toBe(0);

    // A silence created over the API mutes h3 from the next result on.
    const created = await d.json({ method: 'POST', url: '/api/v1/silences', body: JSON.stringify({ matchers: [{ selector: 'event.Computer', value: 'h3' }], comment: 'maintenance' }) });
    expect(created.status).toBe(201);
    const listed = await d.json({ method: 'GET', url: '/api/v1/silences' });
    expect(listed.body).toMatchObject({ count: 1, silences: [{ id: created.body['id'], origin: 'api', state: 'active' }] });

    expect((await post([whoami('h1'), failedLogon('h1'), failedLogon('h2'), whoami('h3'), whoami('h1')])).body).toMatchObject({ accepted: 5 });
    // whoami h1 passes (tagged with its incident); failed logon h1 is inhibited by it; h2's passes;
    // h3 is silenced; the second whoami h1 folds into the first. The answer follows the commit; the file
    // sink writes after it, so wait for the two results to be out.
    const detections = () => lines().filter((l) => l['result_id']?.toString().startsWith('e'));
    const passed = await waitFor(() => (detections().length >= 2 ? detections() : undefined), 20_000, 'the two passed detections');
    expect(passed.map((l) => [l['rule_id'], (l['matched_fields'] as { value: string }[])[0]?.value ?? null])).toHaveLength(2);
    expect(passed.every((l) => l['event'] === undefined && typeof (l['enrichments'] as Record<string, unknown>)['incident_id'] === 'string')).toBe(true);
    const h1 = (passed.find((l) => l['rule_id'] === WHOAMI)?.['enrichments'] as Record<string, string>)['incident_id'] as string;

    await emitted((l) => l['incident_id'] === h1 && l['trigger'] === 'group_wait', 'the group_wait emission');
    const one = await d.json({ method: 'GET', url: `/api/v1/incidents/${h1}` });
    expect(one.body).toMatchObject({ incident_id: h1, state: 'open', trigger: 'snapshot', group_by: { 'event.Computer': 'h1' }, bundle_ready: true, max_level: 'high' });
    const list = await d.json({ method: 'GET', url: '/api/v1/incidents' });
    expect(list.body['count']).toBe(2);
    const bundle = await d.json({ method: 'GET', url: `/api/v1/incidents/${h1}/bundle?format=json` });
    expect(bundle.body).toMatchObject({ schema_version: 1, sources: { rules: true, risk: false }, incident: { incident_id: h1 }, rules: [{ key: WHOAMI, count: 1, resolution: 'unique', documents: [{ identity: { kind: 'detection', id: WHOAMI, title: 'Whoami Execution' } }] }] });
    const md = await d.request({ method: 'GET', url: `/api/v1/incidents/${h1}/bundle?format=md` });
    expect(md.status).toBe(200);
    expect(md.text).toContain(`# Incident ${h1}`);
    expect((await d.json({ method: 'GET', url: `/api/v1/incidents/${h1}/bundle?format=pdf` })).status).toBe(400);
    expect((await d.json({ method: 'GET', url: '/api/v1/incidents/nope' })).status).toBe(404);

    // A new command line on h1 is a new fingerprint: it passes and makes the open incident dirty.
    await post([whoami('h1', 'whoami /all')]);
    await emitted((l) => l['incident_id'] === h1 && l['trigger'] === 'group_interval', 'the group_interval emission');
    await emitted((l) => (l['enrichments'] as Record<string, unknown> | undefined)?.['dedup_state'] === 'repeat', 'a dedup repeat summary');
    await emitted((l) => l['incident_id'] === h1 && l['trigger'] === 'repeat', 'the repeat emission');
    const resolvedSummary = await emitted((l) => (l['enrichments'] as Record<string, unknown> | undefined)?.['dedup_state'] === 'resolved', 'a dedup resolved summary');
    expect(resolvedSummary['enrichments']).toMatchObject({ dedup_fields: { 'event.Computer': expect.any(String) } });
    await emitted((l) => l['incident_id'] === h1 && l['trigger'] === 'resolved', 'the resolved emission');
    expect((await d.json({ method: 'GET', url: `/api/v1/incidents/${h1}` })).status).toBe(404);
    const ids = lines().map((l) => l['result_id']);
    expect(new Set(ids).size).toBe(ids.length);

    // Hot reload to entity_graph with a stop value: the over-merge guard counts.
    writeFileSync(pipelineFile, 'group:\n  mode: entity_graph\n  entities: [event.Computer]\n  stop_values: [h9]\n');
    expect((await d.json({ method: 'POST', url: '/api/v1/reload' })).status).toBe(200);
    await waitFor(async () => ((await d.request({ method: 'GET', url: '/readyz' })).status === 200 && d.logs.some((l) => l.includes('alert pipeline reloaded')) ? true : undefined), 20_000, 'the reload');
    await post([whoami('h9', 'whoami /priv')]);
    const m = await waitFor(async () => {
      const t = await scrape();
      return metric(t, 'svc_incident_overmerge_total{guard="stop_value"}') === 1 ? t : undefined;
    }, 20_000, 'the over-merge counter');
    // A bad file keeps the running pipeline and counts the failure.
    writeFileSync(pipelineFile, 'group:\n  mode: entity_graph\n  entities: [event.Computer]\n  bogus: 1\n');
    await d.json({ method: 'POST', url: '/api/v1/reload' });
    await waitFor(async () => (metric(await scrape(), 'svc_reloads_failed_total') >= 1 ? true : undefined), 20_000, 'the failed reload');
    expect(d.logs.some((l) => l.includes("unknown key 'group.bogus'"))).toBe(true);

    for (const series of [
      'svc_dedup_results_total{action="emitted"}', 'svc_dedup_results_total{action="folded"}', 'svc_dedup_results_total{action="repeat"}',
      'svc_dedup_results_total{action="resolved"}', 'svc_dedup_evictions_total', 'svc_dedup_summaries_emitted_total',
      'svc_incidents_emitted_total{trigger="group_wait"}', 'svc_incidents_emitted_total{trigger="group_interval"}',
      'svc_incidents_emitted_total{trigger="repeat"}', 'svc_incidents_emitted_total{trigger="resolved"}', 'svc_incident_results_total',
      'svc_silenced_total', 'svc_inhibited_total{rule="high-mutes-low"}', 'svc_alert_pipeline_duration_seconds_count',
      'svc_silences_active', 'svc_incidents_open',
    ]) expect(metric(m, series), series).toBeGreaterThan(0);
    expect(metric(before, 'svc_dedup_store_entries')).toBe(0);
    expect(metric(before, 'svc_inhibit_sources_active')).toBe(0);
    expect(metric(m, 'svc_inhibit_sources_active')).toBe(0);
  }, 90_000);
});

describe('alert pipeline start-up errors', () => {
  beforeAll(ensureBuilt, 180_000);
  it('exits 3 naming the unknown key or the bad value of the file', async () => {
    const dir = tempDir('alerts-bad');
    for (const [text, named] of [
      ['dedup:\n  fingerprint: [rule]\n  colour: red\n', "unknown key 'dedup.colour'"],
      ['silences:\n  - matchers: [{ selector: rule, op: "=~", value: "(a+)+" }]\n', 'silences[0].matchers[0].value: regex refused'],
      ['group:\n  by: []\n', 'group.by: must be a non-empty list'],
    ] as const) {
      const file = join(dir, 'bad.yaml');
      writeFileSync(file, text);
      const d = await startDaemon(['--rules', join(FIXTURES, 'rules'), '--alert-pipeline', file, '--api-addr', '127.0.0.1:0', '--detect-workers', '0'], { noWait: true });
      expect(await d.exited).toBe(3);
      expect(d.logs.join('\n')).toContain('--alert-pipeline (daemon.alert_pipeline)');
      expect(d.logs.join('\n')).toContain(named);
    }
  }, 90_000);
});
