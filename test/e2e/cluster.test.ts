// Issue 21, scale-out on NATS JetStream: three `sigmad daemon` nodes in cluster mode against a real
// nats-server share one input stream; correlation state is partitioned and owned through leases. One
// node is SIGKILLed mid-stream and started again later. The union of what the nodes publish equals a
// single-node oracle run exactly (none lost, none twice), and the correlation groups the partition
// owners hold equal the oracle's.
import { join } from 'node:path';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { describe, expect, it } from 'vitest';
import { rng as prng } from '../../scripts/bench/lanes.js';
import { useNatsServer } from './nats-fixture.js';
import { FIXTURES, startDaemon, tempDir, waitFor } from './harness.js';
import type { RunningDaemon } from './harness.js';

const RULES = join(FIXTURES, 'crash-rules');
const EVENTS = 1_200;
const HOSTS = 40;
const T0 = Date.parse('2024-03-01T00:00:00Z');

const nats = useNatsServer();

/** Correlation-heavy: one event per second of event time over many hosts, every kind feeding a correlation. */
function lane(): string[] {
  const rand = prng(21);
  const out: string[] = [];
  for (let n = 0; n < EVENTS; n++) {
    const base = { '@timestamp': new Date(T0 + n * 1000).toISOString(), Computer: `host-${Math.floor(rand() * HOSTS)}`, seq: n };
    const pick = Math.floor(rand() * 5);
    if (pick === 0) out.push(JSON.stringify({ ...base, EventID: 4625, TargetUserName: `u${Math.floor(rand() * 4)}` }));
    else if (pick === 1) out.push(JSON.stringify({ ...base, EventID: 4624, TargetUserName: `u${Math.floor(rand() * 5)}` }));
    else if (pick === 2) out.push(JSON.stringify({ ...base, EventID: 1, CommandLine: 'cmd /c whoami' }));
    else if (pick === 3) out.push(JSON.stringify({ ...base, EventID: 1, CommandLine: 'net view \\\\dc01' }));
    else out.push(JSON.stringify({ ...base, EventID: 3, Bytes: Math.floor(rand() * 2000) }));
  }
  return out;
}

async function publish(subject: string, payloads: readonly string[]): Promise<void> {
  const js = jetstream(nats.nc);
  for (let i = 0; i < payloads.length; i += 200) await Promise.all(payloads.slice(i, i + 200).map((p) => js.publish(subject, p)));
}

/** Every message of a stream, in order. */
async function streamTexts(stream: string): Promise<string[]> {
  const jsm = await jetstreamManager(nats.nc);
  const info = await jsm.streams.info(stream).catch(() => undefined);
  if (info === undefined || info.state.messages === 0) return [];
  const out: string[] = [];
  for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq++) {
    const m = await jsm.streams.getMessage(stream, { seq }).catch(() => null);
    if (m !== null) out.push(m.string());
  }
  return out;
}

/** The stream's message count once it stopped growing for a while (and is at least `min`). */
async function settled(stream: string, min: number, timeoutMs: number): Promise<string[]> {
  let last = -1;
  let since = Date.now();
  return waitFor(async () => {
    const jsm = await jetstreamManager(nats.nc);
    const n = (await jsm.streams.info(stream).catch(() => undefined))?.state.messages ?? 0;
    if (n !== last) {
      last = n;
      since = Date.now();
      return undefined;
    }
    return n >= min && Date.now() - since > 3_000 ? streamTexts(stream) : undefined;
  }, timeoutMs, `${stream} to settle`);
}

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
  it('three nodes, one SIGKILLed and restarted, publish exactly the single-node results and hold its correlation state', { timeout: 120_000 }, async () => {
    const events = lane();
    const dir = tempDir('cluster-e2e');
    // The oracle: one node without --cluster on a stream of its own, started beside the cluster.
    const daemons = await Promise.all([
      startDaemon(['--rules', RULES, '--input', `${nats.server.url}/oracle.in`, '--input-format', 'json', '--api-addr', '127.0.0.1:0', '--output', `${nats.server.url}/oracle.out`, '--detect-workers', '0']),
      ...[0, 1, 2].map((i) => node(i, dir)),
    ]);
    const oracle = daemons[0] as RunningDaemon;
    const nodes = daemons.slice(1);
    const owned = async (ds: readonly RunningDaemon[]): Promise<number[]> =>
      Promise.all(ds.map(async (d) => ((await d.json({ method: 'GET', url: '/api/v1/cluster' })).body['owned'] as unknown[]).length));
    try {
      await publish('oracle.in', events);
      await waitFor(async () => {
        const n = await owned(nodes);
        return n.reduce((a, b) => a + b, 0) === 8 && n.every((x) => x > 0) ? true : undefined;
      }, 30_000, 'every partition owned');
      await publish('cluster.in', events.slice(0, EVENTS / 2));
      await waitFor(async () => ((await streamTexts('svc-cluster-out')).length > 20 ? true : undefined), 20_000, 'first results');
      const killed = nodes[2] as RunningDaemon;
      killed.kill('SIGKILL');
      await killed.exited;
      await publish('cluster.in', events.slice(EVENTS / 2));
      const survivors = nodes.slice(0, 2);
      await waitFor(async () => ((await owned(survivors)).reduce((a, b) => a + b, 0) === 8 ? true : undefined), 30_000, "the dead node's partitions taken over");
      nodes[2] = await node(2, dir);
      const expected = await settled('svc-oracle-out', 100, 30_000);
      expect(expected.some((t) => (JSON.parse(t) as { correlation_type?: string }).correlation_type !== undefined)).toBe(true);
      const published = await settled('svc-cluster-out', expected.length, 40_000);
      const ids = published.map((t) => (JSON.parse(t) as { result_id: string }).result_id);
      expect(new Set(ids).size, 'no result twice').toBe(ids.length);
      expect(published.map(content).sort()).toEqual(expected.map(content).sort());
      const oracleGroups = (await oracle.json({ method: 'GET', url: '/api/v1/correlations/state' })).body['groups'] as Group[];
      const clusterGroups = (await Promise.all(nodes.map(async (d) => (await d.json({ method: 'GET', url: '/api/v1/cluster' })).body['groups'] as Group[]))).flat();
      expect(sortGroups(clusterGroups)).toEqual(sortGroups(oracleGroups));
    } catch (error) {
      for (const d of nodes) console.error(d.logs.filter((l) => !l.includes('"msg":"HTTP')).slice(-8).join('\n'));
      throw error;
    } finally {
      for (const d of [oracle, ...nodes]) d.kill('SIGTERM');
      await Promise.all([oracle, ...nodes].map((d) => d.exited));
    }
  });
});
