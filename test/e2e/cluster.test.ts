// Issue 21, scale-out on NATS JetStream: three `sigmad daemon` nodes in cluster mode against a real
// nats-server share one input stream; correlation state is partitioned and owned through leases. One
// node is SIGKILLed mid-stream and started again later. The union of what the nodes publish equals a
// single-node oracle run exactly (none lost, none twice), and the correlation groups the partition
// owners hold equal the oracle's.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useNatsServer } from './nats-fixture.js';
import { converged, describeDiff, killAndRestartMidLane, lane, ownerViews, runCluster, publish } from './cluster-lane.js';
import { FIXTURES, startDaemon, tempDir } from './harness.js';
import type { RunningDaemon } from './harness.js';

const RULES = join(FIXTURES, 'crash-rules');

const nats = useNatsServer();

/** A result without its id (detection ids derive from the input sequence, correlation ids from hit sequences). */
function content(text: string): string {
  const { result_id: _id, ...rest } = JSON.parse(text) as Record<string, unknown>;
  return JSON.stringify(rest);
}

function node(i: number, dir: string): Promise<RunningDaemon> {
  return startDaemon([
    '--rules', RULES, '--input', `${nats.server.url}/cluster.in`, '--input-format', 'json', '--api-addr', '127.0.0.1:0',
    '--state-db', join(dir, `node-${i}`), '--output', `${nats.server.url}/cluster.out`, '--nats-ack-wait', '1', '--batch-size', '32', '--detect-workers', '0',
    '--cluster', nats.server.url, '--cluster-node-id', `node-${i}`, '--cluster-partitions', '8',
    '--cluster-lease-ttl-ms', '3000', '--cluster-snapshot-interval-ms', '300',
  ]);
}

type Group = Record<string, unknown>;

/**
 * Groups, sorted, without `last_alert`: expired groups are dropped at ticks, which follow batch
 * boundaries (on a single node too), so whether a group re-created after expiring still shows the
 * previous group's alert time depends on how the input happened to be batched, not on the cluster.
 */
function sortGroups(groups: readonly Group[]): string[] {
  return groups.map(({ last_alert: _alert, ...g }) => JSON.stringify(g)).sort();
}

describe('cluster mode on NATS JetStream', () => {
  it('three nodes, one SIGKILLed and restarted, publish exactly the single-node results and hold its correlation state', { timeout: 300_000 }, async () => {
    const dir = tempDir('cluster-e2e');
    // The oracle: one node without --cluster on a stream of its own, started beside the cluster.
    const daemons = await Promise.all([
      startDaemon(['--rules', RULES, '--input', `${nats.server.url}/oracle.in`, '--input-format', 'json', '--api-addr', '127.0.0.1:0', '--output', `${nats.server.url}/oracle.out`, '--detect-workers', '0']),
      ...[0, 1, 2].map((i) => node(i, dir)),
    ]);
    const oracle = daemons[0] as RunningDaemon;
    const nodes = daemons.slice(1);
    await runCluster(oracle, nodes, async () => {
      await publish(nats.nc, 'oracle.in', lane());
      await killAndRestartMidLane(nats.nc, nodes, 8, 'cluster.in', 'svc-cluster-out', () => node(2, dir));
      const expected = await converged(nats.nc, { input: 'oracle.in', output: 'svc-oracle-out' }, [oracle], 0, 100, 30_000);
      expect(expected.some((t) => (JSON.parse(t) as { correlation_type?: string }).correlation_type !== undefined)).toBe(true);
      const published = await converged(nats.nc, { input: 'cluster.in', output: 'svc-cluster-out' }, nodes, 8, expected.length, 30_000, (got) => describeDiff(expected, got, content));
      const ids = published.map((t) => (JSON.parse(t) as { result_id: string }).result_id);
      expect(new Set(ids).size, 'no result twice').toBe(ids.length);
      expect(published.map(content).sort()).toEqual(expected.map(content).sort());
      const oracleGroups = (await oracle.json({ method: 'GET', url: '/api/v1/correlations/state' })).body['groups'] as Group[];
      const clusterGroups = (await ownerViews(nodes, 8)).flatMap((v) => v['groups'] as Group[]);
      expect(sortGroups(clusterGroups)).toEqual(sortGroups(oracleGroups));
    });
  });
});
