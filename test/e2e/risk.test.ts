// Issue 14 end to end on the real daemon: a risk config whose host crosses the score threshold and
// another host the tactic threshold, risk events and incidents written before the result that made
// them, GET /api/v1/risk, every §8.7 metric moving, kill -9 and replay (no incident lost or twice,
// cooldown kept), hot reload with caps, a failed reload, and a reload without an incident block.
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ndjson, readNdjson, startDaemon, tempDir, waitFor } from './harness.js';
import type { RunningDaemon } from './harness.js';

const FIXTURES = join(import.meta.dirname, '../fixtures/risk');
const WHOAMI = '7a2b0c1e-0000-4000-8000-000000000001';
const whoami = (host: string, user?: string) => ({ CommandLine: 'whoami /all', Computer: host, ...(user !== undefined ? { User: user } : {}) });
const encoded = (host: string) => ({ CommandLine: 'powershell -enc AAAA', Computer: host });

function metric(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? Number.NaN : Number(line.slice(series.length + 1));
}

type Line = Record<string, unknown>;
const isIncident = (l: Line) => typeof l['risk_incident_id'] === 'string';

describe('risk layer on the real daemon', () => {
  const dir = tempDir('risk');
  const out = join(dir, 'out.ndjson');
  const riskFile = join(dir, 'risk.yaml');
  const state = join(dir, 'state');
  let d: RunningDaemon | undefined;
  const start = () =>
    startDaemon([
      '--rules', join(FIXTURES, 'rules'), '--input', 'http', '--api-addr', '127.0.0.1:0', '--include-event',
      '--risk', riskFile, '--output', `file://${out}`, '--state-db', state, '--detect-workers', '0',
    ]);
  const daemon = (): RunningDaemon => {
    if (d === undefined) throw new Error('no daemon');
    return d;
  };
  const post = async (events: readonly unknown[]) => expect((await daemon().json({ method: 'POST', url: '/api/v1/events', body: ndjson(events) })).body).toMatchObject({ accepted: events.length });
  const scrape = async () => (await daemon().request({ method: 'GET', url: '/metrics' })).text;
  const entities = async () => (await daemon().json({ method: 'GET', url: '/api/v1/risk' })).body as { count: number; entities: Line[] };
  const reloaded = async (text: string, what: string) => {
    const before = daemon().logs.length;
    writeFileSync(riskFile, text);
    expect((await daemon().json({ method: 'POST', url: '/api/v1/reload' })).status).toBe(200);
    await waitFor(() => daemon().logs.slice(before).find((l) => l.includes(what)), 20_000, what);
  };

  afterAll(async () => {
    d?.kill('SIGKILL');
    await d?.exited;
  });

  it('annotates, emits risk events and incidents before their results, lists entities, moves every metric, survives kill -9 and reloads', async () => {
    copyFileSync(join(FIXTURES, 'risk.yaml'), riskFile);
    d = await start();
    const before = await scrape();
    expect(metric(before, 'svc_risk_annotations_total{action="scored"}')).toBe(0);
    expect(metric(before, 'svc_risk_incidents_emitted_total{trigger="tactic_count"}')).toBe(0);

    // h1/alice: two high results = 100 points (score). h2: discovery + execution + defense evasion (tactic_count).
    await post([whoami('h1', 'alice'), whoami('h1', 'alice'), whoami('h2'), encoded('h2'), { EventID: 4625 }]);
    const lines = await waitFor(() => {
      const l = readNdjson(out);
      return l.filter(isIncident).length === 3 && l.filter((x) => x['rule_id'] !== undefined).length === 5 ? l : undefined;
    }, 20_000, 'three risk incidents and five results');
    const incidents = lines.filter(isIncident);
    expect(incidents.map((i) => [i['entity_type'], i['entity_value'], i['trigger'], i['score'], i['tactic_count']])).toEqual([
      ['host', 'h1', 'score', 100, 1],
      ['user', 'alice', 'score', 100, 1],
      ['host', 'h2', 'tactic_count', 70, 3],
    ]);
    expect(incidents[2]).toMatchObject({ tactics: ['discovery', 'execution', 'defense-evasion'], source_count: 2, result_count: 2, score_threshold: 100, tactic_count_threshold: 3 });
    expect(incidents[0]?.['refs']).toEqual([
      { rule: WHOAMI, level: 'high', score: 50, timestamp: expect.any(Number) },
      { rule: WHOAMI, level: 'high', score: 50, timestamp: expect.any(Number) },
    ]);
    // Risk events and incidents precede the result that triggered them; results carry the annotation.
    const results = lines.filter((l) => l['rule_id'] !== undefined);
    const second = lines.indexOf(results[1] as Line);
    expect(lines.indexOf(incidents[0] as Line)).toBeLessThan(second);
    expect(lines.indexOf(incidents[0] as Line)).toBeGreaterThan(lines.indexOf(results[0] as Line));
    // The second h1/alice result: its two risk events, its two incidents, then itself.
    expect(lines.slice(second - 4, second + 1).map((l) => (l['risk_event'] === true ? 'event' : isIncident(l) ? 'incident' : 'result'))).toEqual(['event', 'event', 'incident', 'incident', 'result']);
    expect(lines[second - 4]).toMatchObject({ risk_event: true, rule: WHOAMI, rule_title: 'Whoami Discovery', level: 'high', risk_score: 50, risk_object: { type: 'host', value: 'h1' } });
    expect(results[0]?.['enrichments']).toEqual({ 'risk.score': 50, 'risk.objects': [{ type: 'host', value: 'h1' }, { type: 'user', value: 'alice' }] });
    expect(results[4]?.['enrichments']).toEqual({ 'risk.score': 5 });

    const listed = await entities();
    expect(listed.count).toBe(3);
    expect(listed.entities.find((e) => e['entity_value'] === 'h2')).toMatchObject({ entity_type: 'host', score: 70, tactic_count: 3, source_count: 2, result_count: 2, last_fired: expect.any(Number) });

    const after = await scrape();
    expect(metric(after, 'svc_risk_annotations_total{action="scored"}')).toBe(4);
    expect(metric(after, 'svc_risk_annotations_total{action="no_entity"}')).toBe(1);
    expect(metric(after, 'svc_risk_objects_total')).toBe(6);
    expect(metric(after, 'svc_risk_annotation_score_count')).toBe(5);
    expect(metric(after, 'svc_risk_annotation_score_bucket{le="50"}')).toBe(5);
    expect(metric(after, 'svc_risk_entities_open')).toBe(3);
    expect(metric(after, 'svc_risk_state_entries')).toBe(6);
    expect(metric(after, 'svc_risk_incidents_emitted_total{trigger="score"}')).toBe(2);
    expect(metric(after, 'svc_risk_incidents_emitted_total{trigger="tactic_count"}')).toBe(1);
    expect(metric(after, 'svc_risk_incident_results_total')).toBe(3);
    expect(metric(after, 'svc_risk_layer_duration_seconds_count')).toBeGreaterThan(0);

    // kill -9: the accumulator comes back from the journal; nothing is emitted twice, the cooldown holds.
    daemon().kill('SIGKILL');
    await daemon().exited;
    d = await start();
    expect((await entities()).entities.map((e) => [e['entity_value'], e['score'], e['last_fired'] !== undefined]).sort()).toEqual([
      ['alice', 100, true],
      ['h1', 100, true],
      ['h2', 70, true],
    ]);
    await post([whoami('h1', 'alice')]);
    await waitFor(() => (readNdjson(out).filter((l) => l['rule_id'] !== undefined).length === 6 ? true : undefined), 20_000, 'the sixth result');
    const ids = readNdjson(out).filter(isIncident).map((i) => i['risk_incident_id']);
    expect(ids).toHaveLength(3);
    expect(new Set(ids).size).toBe(3);
    expect((await entities()).entities.find((e) => e['entity_value'] === 'h1')?.['score']).toBe(150);

    // A hot reload with a cap of 3 open entities: a fourth entity is evicted, not recorded.
    const base = await scrape();
    await reloaded(`${readFileSync(join(FIXTURES, 'risk.yaml'), 'utf8')}  caps: { max_open_entities: 3 }\n`, 'risk config reloaded');
    await post([whoami('h9')]);
    await waitFor(async () => (metric(await scrape(), 'svc_risk_evictions_total') === metric(base, 'svc_risk_evictions_total') + 1 ? true : undefined), 20_000, 'an eviction');
    expect((await entities()).count).toBe(3);

    // A bad file keeps the config in force and counts the failure.
    await reloaded('objects: []\n', 'risk config reload failed');
    expect(metric(await scrape(), 'svc_reloads_failed_total')).toBe(metric(base, 'svc_reloads_failed_total') + 1);
    expect((await entities()).count).toBe(3);

    // Without an incident block the accumulator is cleared: annotation only.
    await reloaded('objects:\n  - { type: host, selector: event.Computer }\n', 'risk config reloaded');
    expect(await entities()).toEqual({ count: 0, entities: [] });
  }, 120_000);

  it('refuses a bad risk file at start-up with exit 3 naming the key', async () => {
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, 'objects:\n  - { type: host, selector: event.Computer }\nincident:\n  windw: 1h\n  score_threshold: 5\n');
    const failed = await startDaemon(['--rules', join(FIXTURES, 'rules'), '--input', 'http', '--api-addr', '127.0.0.1:0', '--risk', bad], { noWait: true });
    expect(await failed.exited).toBe(3);
    expect(failed.logs.join('\n')).toMatch(/risk.*incident\.windw/);
  }, 60_000);
});

