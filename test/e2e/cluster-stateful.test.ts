// Issue 21, the alert pipeline and the risk layer partitioned: three cluster nodes with the same
// alert pipeline (dedup, incidents by host) and risk config (entity: the host) as a single-node oracle;
// one node is SIGKILLed mid-stream and restarted. The nodes publish what the oracle publishes (the
// results that survive dedup, with their incident ids and risk annotations, the risk events and risk
// incidents), none twice, and the partition owners hold the oracle's incidents and risk entities.
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useNatsServer } from './nats-fixture.js';
import { converged, describeDiff, killAndRestartMidLane, lane, owned, ownerViews, runCluster, publish } from './cluster-lane.js';
import { FIXTURES, startDaemon, tempDir, waitFor } from './harness.js';
import type { RunningDaemon } from './harness.js';

const RULES = join(FIXTURES, 'crash-rules');
const PARTITIONS = 8;
/** A run fails when nothing moves for this long, not after a fixed time: a loaded machine is slow, not wrong. */
const STALL_MS = 30_000;

const nats = useNatsServer();

// A rule not referenced by a correlation, so detection results pass the stages too (under the key of no host).
const SEEN = `
title: Logon Failure Seen
id: 7c0a0000-0000-4000-8000-000000000021
level: low
logsource:
  product: windows
  service: security
detection:
  selection:
    EventID: 4625
  condition: selection
`;
// A correlation over a correlation: its groups would need the parent's results routed by its own key.
const CHAINED = `
title: Bursts On One Host
id: 7c0a0000-0000-4000-8000-000000000031
level: critical
correlation:
  type: event_count
  rules:
    - 7c0a0000-0000-4000-8000-000000000011
  group-by:
    - Computer
  timespan: 10m
  condition:
    gte: 2
`;
// Keyed by the host the correlation groups are: correlation results of one host come from the
// partitions of several correlations and meet in the host's partition. Long timers: what passes,
// how it groups and which result raises a risk incident depend only on the input order.
const ALERTS = `
dedup:
  fingerprint: [correlation.group_key.Computer, rule]
  resolve_timeout: 24h
group:
  by: [correlation.group_key.Computer]
  group_wait: 24h
  resolve_timeout: 24h
`;
const RISK = `
score:
  level_scores: { high: 30, medium: 10, low: 5, informational: 1 }
objects:
  - { type: host, selector: correlation.group_key.Computer }
emit_risk_events: true
incident:
  window: 24h
  score_threshold: 25
  cooldown: 24h
`;

/** Keys whose values are wall-clock times or ids derived from result ids (which differ between a single node and a cluster). */
const VARYING = new Set(['result_id', 'risk_incident_id', 'timestamp', 'window_start', 'window_end', 'first_seen', 'last_seen', 'last_fired']);

function normalise(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalise);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).filter(([k]) => !VARYING.has(k)).map(([k, v]) => [k, normalise(v)]));
}

const content = (text: string): string => JSON.stringify(normalise(JSON.parse(text)));
const sorted = (records: readonly unknown[]): string[] => records.map((r) => JSON.stringify(normalise(r))).sort();

function args(dir: string, input: string, output: string): string[] {
  return [
    '--rules', join(dir, 'rules'), '--input', `${nats.server.url}/${input}`, '--input-format', 'json', '--api-addr', '127.0.0.1:0', 
    '--output', `${nats.server.url}/${output}`, '--detect-workers', '0', '--alert-pipeline', join(dir, 'alerts.yaml'), '--risk', join(dir, 'risk.yaml'),
  ];
}

function node(i: number, dir: string): Promise<RunningDaemon> {
  return startDaemon([
    ...args(dir, 'cluster.in', 'cluster.out'), '--state-db', join(dir, `node-${i}`), '--nats-ack-wait', '1', '--batch-size', '32',
    '--cluster', nats.server.url, '--cluster-node-id', `node-${i}`, '--cluster-partitions', String(PARTITIONS),
    '--cluster-lease-ttl-ms', '3000', '--cluster-snapshot-interval-ms', '300',
  ]);
}

describe('cluster mode with an alert pipeline and a risk layer', () => {
  it('three nodes, one SIGKILLed and restarted, publish the single-node results and hold its incidents and risk entities', { timeout: 600_000 }, async () => {
    const dir = tempDir('cluster-stateful');
    cpSync(RULES, join(dir, 'rules'), { recursive: true });
    writeFileSync(join(dir, 'rules', 'logon-failure-seen.yml'), SEEN);
    writeFileSync(join(dir, 'alerts.yaml'), ALERTS);
    writeFileSync(join(dir, 'risk.yaml'), RISK);
    const daemons = await Promise.all([startDaemon(args(dir, 'oracle.in', 'oracle.out')), ...[0, 1, 2].map((i) => node(i, dir))]);
    const oracle = daemons[0] as RunningDaemon;
    const nodes = daemons.slice(1);
    await runCluster(oracle, nodes, async () => {
      await publish(nats.nc, 'oracle.in', lane());
      await killAndRestartMidLane(nats.nc, nodes, PARTITIONS, 'cluster.in', 'svc-cluster-out', () => node(2, dir));
      const expected = await converged(nats.nc, { input: 'oracle.in', output: 'svc-oracle-out' }, [oracle], 0, 100, STALL_MS);
      const parsed = expected.map((t) => JSON.parse(t) as Record<string, unknown>);
      expect(parsed.some((r) => r['risk_incident_id'] !== undefined), 'the lane raises risk incidents').toBe(true);
      expect(parsed.some((r) => r['correlation_type'] !== undefined), 'correlation results pass the stages').toBe(true);
      expect(parsed.some((r) => r['rule_title'] === 'Logon Failure Seen'), 'detection results pass the stages').toBe(true);
      const published = await converged(nats.nc, { input: 'cluster.in', output: 'svc-cluster-out' }, nodes, PARTITIONS, expected.length, STALL_MS, (got) => describeDiff(expected, got, content));
      const ids = published.map((t) => (JSON.parse(t) as { result_id: string }).result_id);
      expect(new Set(ids).size, 'no result twice').toBe(ids.length);
      expect(published.map(content).sort()).toEqual(expected.map(content).sort());
      const views = (await ownerViews(nodes, PARTITIONS)) as { incidents: unknown[]; risk: unknown[] }[];
      const incidents = (await oracle.json({ method: 'GET', url: '/api/v1/incidents' })).body['incidents'] as unknown[];
      expect(incidents.length).toBeGreaterThan(0);
      expect(sorted(views.flatMap((v) => v.incidents))).toEqual(sorted(incidents));
      const entities = (await oracle.json({ method: 'GET', url: '/api/v1/risk' })).body['entities'] as unknown[];
      expect(entities.length).toBeGreaterThan(0);
      expect(sorted(views.flatMap((v) => v.risk))).toEqual(sorted(entities));
    });
  });

  it('a reload reaches the partitions already owned: rules and alert pipeline; a chained correlation fails the reload', { timeout: 90_000 }, async () => {
    const dir = tempDir('cluster-reload');
    cpSync(RULES, join(dir, 'rules'), { recursive: true });
    writeFileSync(join(dir, 'alerts.yaml'), ALERTS);
    writeFileSync(join(dir, 'risk.yaml'), RISK);
    const d = await startDaemon([...args(dir, 'reload.in', 'reload.out'), '--state-db', join(dir, 'node'), '--batch-size', '8', '--cluster', nats.server.url, '--cluster-name', 'reload', '--cluster-node-id', 'solo', '--cluster-partitions', '4']);
    const at = (n: number): string => new Date(Date.parse('2024-03-02T00:00:00Z') + n * 1000).toISOString();
    const failed = (host: string, n: number) => JSON.stringify({ '@timestamp': at(n), Computer: host, EventID: 4625, TargetUserName: 'u' });
    const logon = (host: string, n: number, user: string) => JSON.stringify({ '@timestamp': at(n), Computer: host, EventID: 4624, TargetUserName: user });
    const reloaded = async (count: number): Promise<void> => {
      expect((await d.json({ method: 'POST', url: '/api/v1/reload' })).status).toBe(200);
      await waitFor(async () => (d.logs.filter((l) => l.includes('"msg":"rules reloaded"') || l.includes('"msg":"reload failed')).length >= count ? true : undefined), 30_000, 'the reload');
    };
    // The rules of the results that passed the pipeline (risk events bypass it).
    const rules = (lines: readonly string[]): string[] =>
      lines.map((t) => JSON.parse(t) as Record<string, unknown>).filter((r) => r['risk_event'] === undefined && r['risk_incident_id'] === undefined).map((r) => String(r['rule_title']));
    try {
      await waitFor(async () => ((await owned([d]))[0] === 4 ? true : undefined), 30_000, 'every partition owned');
      // Before: three failed logons on h1 fire the burst; two users on h2 are below the threshold of three.
      await publish(nats.nc, 'reload.in', [failed('h1', 0), failed('h1', 1), failed('h1', 2), logon('h2', 3, 'a'), logon('h2', 4, 'b')]);
      const before = await converged(nats.nc, { input: 'reload.in', output: 'svc-reload-out' }, [d], 4, 1, STALL_MS);
      expect(rules(before).filter((r) => r === 'Logon Failures Burst')).toHaveLength(1);
      expect(rules(before)).not.toContain('Many Users On One Host');
      // The value_count threshold drops to two, and the alert pipeline silences the burst.
      writeFileSync(join(dir, 'rules', 'corr-value-count.yml'), readFileSync(join(RULES, 'corr-value-count.yml'), 'utf8').replace('gte: 3', 'gte: 2'));
      writeFileSync(join(dir, 'alerts.yaml'), `${ALERTS}silences:\n  - matchers: [{ selector: rule, value: 7c0a0000-0000-4000-8000-000000000011 }]\n`);
      await reloaded(1);
      await publish(nats.nc, 'reload.in', [failed('h3', 10), failed('h3', 11), failed('h3', 12), logon('h4', 13, 'a'), logon('h4', 14, 'b')]);
      const after = await converged(nats.nc, { input: 'reload.in', output: 'svc-reload-out' }, [d], 4, before.length + 1, STALL_MS);
      expect(rules(after.slice(before.length))).toContain('Many Users On One Host');
      expect(rules(after.slice(before.length))).not.toContain('Logon Failures Burst');
      writeFileSync(join(dir, 'rules', 'chained.yml'), CHAINED);
      await reloaded(2);
      expect(d.logs.some((l) => l.includes('chained correlations are not supported in cluster mode'))).toBe(true);
    } finally {
      d.kill('SIGTERM');
      await d.exited;
    }
  });

  it('refuses at start-up, exit 3 naming why, what it cannot partition: chained correlations, entity-graph incidents', { timeout: 60_000 }, async () => {
    const dir = tempDir('cluster-refused');
    cpSync(RULES, join(dir, 'rules'), { recursive: true });
    writeFileSync(join(dir, 'rules', 'chained.yml'), CHAINED);
    mkdirSync(join(dir, 'plain'));
    cpSync(RULES, join(dir, 'plain', 'rules'), { recursive: true });
    writeFileSync(join(dir, 'plain', 'alerts.yaml'), 'group:\n  mode: entity_graph\n  entities: [event.Computer]\n');
    writeFileSync(join(dir, 'plain', 'risk.yaml'), RISK);
    writeFileSync(join(dir, 'alerts.yaml'), ALERTS);
    writeFileSync(join(dir, 'risk.yaml'), RISK);
    const cluster = ['--cluster', nats.server.url, '--cluster-node-id', 'refused'];
    const [chained, entityGraph] = await Promise.all([
      startDaemon([...args(dir, 'refused.in', 'refused.out'), ...cluster], { noWait: true }),
      startDaemon([...args(join(dir, 'plain'), 'refused.in', 'refused.out'), ...cluster], { noWait: true }),
    ]);
    expect(await chained.exited).toBe(3);
    expect(chained.logs.join('\n')).toMatch(/daemon\.cluster\.url.*chained correlations are not supported in cluster mode: 'Bursts On One Host' correlates a correlation/);
    expect(await entityGraph.exited).toBe(3);
    expect(entityGraph.logs.join('\n')).toMatch(/daemon\.cluster\.url.*cannot partition this alert pipeline or risk state: alert pipeline group\.mode entity_graph/);
  });
});
