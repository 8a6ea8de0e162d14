// Issue 21, API silences across the cluster: two nodes with an alert pipeline whose state is partitioned
// by host. A silence created on one node is listed by the other and mutes results in the partitions
// either node owns; deleting it on the other node unmutes them everywhere. An expired silence is
// purged from the bucket.
import { cpSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Kvm } from '@nats-io/kv';
import { describe, expect, it } from 'vitest';
import { compileAlertConfig, decideStateKey, partitionOf, stateKeyOf } from '../../actors/index.js';
import type { AlertResult } from '../../actors/index.js';
import { useNatsServer } from './nats-fixture.js';
import { converged, owned, publish, showLogs } from './cluster-lane.js';
import { FIXTURES, startDaemon, tempDir, waitFor } from './harness.js';
import type { RunningDaemon } from './harness.js';

const PARTITIONS = 4;
/** A run fails when nothing moves for this long, not after a fixed time. */
const STALL_MS = 30_000;
const ALERTS = `
dedup:
  fingerprint: [correlation.group_key.Computer, rule]
  resolve_timeout: 24h
`;
const BURST = 'Logon Failures Burst';

const nats = useNatsServer();

/** Three failed logons on `host` within a second each: one burst result keyed by the host. */
function burst(host: string, from: number): string[] {
  return [0, 1, 2].map((i) => JSON.stringify({ '@timestamp': new Date(Date.parse('2024-03-02T00:00:00Z') + (from + i) * 1000).toISOString(), Computer: host, EventID: 4625, TargetUserName: 'u' }));
}

/** The partition holding a burst on `host` (its state key: the host). */
function partitionOfHost(host: string): number {
  const decided = decideStateKey(compileAlertConfig({ dedup: { fingerprint: ['correlation.group_key.Computer', 'rule'] } }), undefined);
  if (!decided.ok) throw new Error(decided.reason);
  return partitionOf('', stateKeyOf(decided.selectors, { group_key: [['Computer', host]] } as unknown as AlertResult), PARTITIONS);
}

interface OwnedView {
  readonly partition: number;
  readonly silence_rev: number;
}

async function ownedViews(nodes: readonly RunningDaemon[]): Promise<OwnedView[][]> {
  return Promise.all(nodes.map(async (d) => (await d.json({ method: 'GET', url: '/api/v1/cluster' })).body['owned'] as OwnedView[]));
}

describe('API silences in cluster mode', () => {
  it('a silence created on one node mutes in the partitions of both; deleted on the other, it unmutes everywhere', { timeout: 300_000 }, async () => {
    const dir = tempDir('cluster-silences');
    cpSync(join(FIXTURES, 'crash-rules'), join(dir, 'rules'), { recursive: true });
    writeFileSync(join(dir, 'alerts.yaml'), ALERTS);
    const node = (i: number) =>
      startDaemon([
        '--rules', join(dir, 'rules'), '--input', `${nats.server.url}/silence.in`, '--input-format', 'json', '--api-addr', '127.0.0.1:0',
        '--output', `${nats.server.url}/silence.out`, '--detect-workers', '0', '--alert-pipeline', join(dir, 'alerts.yaml'),
        '--state-db', join(dir, `node-${i}`), '--batch-size', '8', '--cluster', nats.server.url, '--cluster-name', 'silences',
        '--cluster-node-id', `node-${i}`, '--cluster-partitions', String(PARTITIONS), '--cluster-lease-ttl-ms', '3000',
      ]);
    const nodes = await Promise.all([node(0), node(1)]);
    const [a, b] = nodes as [RunningDaemon, RunningDaemon];
    let at = 0;
    /** The result stream so far. */
    let out: string[] = [];
    /**
     * Publishes a burst on every host and waits for the cluster to be done with them: the hosts whose bursts
     * came out. At least `unmuted` more results must come out first: runs were seen where the output stood
     * still for 3 s with every partition at lag 0 before a burst's result had come out.
     */
    const bursts = async (hosts: readonly string[], unmuted: number): Promise<string[]> => {
      const before = out.length;
      await publish(nats.nc, 'silence.in', hosts.flatMap((h) => burst(h, (at += 10))));
      out = await converged(nats.nc, { input: 'silence.in', output: 'svc-silence-out' }, nodes, PARTITIONS, before + unmuted, STALL_MS);
      return out.slice(before).map((t) => JSON.parse(t) as { rule_title: string; group_key: [string, string][] }).filter((r) => r.rule_title === BURST).map((r) => r.group_key[0]?.[1] ?? '');
    };
    /** Every partition, on whichever node owns it, has applied the silence bucket up to `rev`. */
    const inForce = (rev: number) =>
      waitFor(async () => {
        const views = (await ownedViews(nodes)).flat();
        return views.length === PARTITIONS && views.every((v) => v.silence_rev >= rev) ? true : undefined;
      }, 60_000, `silence revision ${rev} in force in every partition`);
    try {
      await waitFor(async () => {
        const n = await owned(nodes);
        return (n[0] ?? 0) + (n[1] ?? 0) === PARTITIONS && n.every((x) => x > 0) ? true : undefined;
      }, 60_000, 'every partition owned, by both nodes');
      const byB = new Set(((await ownedViews([b]))[0] ?? []).map((v) => v.partition));
      const hosts = (tag: string) => Array.from({ length: 8 }, (_, i) => `${tag}-${i}`);
      const muted = (tag: string) => hosts(`muted-${tag}`);
      // Before any silence every burst comes out.
      expect((await bursts(muted('1'), 8)).sort()).toEqual(muted('1').sort());

      const created = await a.json({ method: 'POST', url: '/api/v1/silences', body: JSON.stringify({ matchers: [{ selector: 'correlation.group_key.Computer', op: '=~', value: 'muted-.*' }], comment: 'maintenance' }) });
      expect(created.status).toBe(201);
      const id = created.body['id'] as string;
      // B answers the cluster's view: the silence A took.
      await waitFor(async () => (((await b.json({ method: 'GET', url: '/api/v1/silences' })).body['silences'] as { id: string }[]).some((s) => s.id === id) ? true : undefined), 30_000, 'B to list the silence');
      await inForce(1);
      const second = muted('2');
      expect(second.some((h) => byB.has(partitionOfHost(h))), 'some muted host is in a partition B owns').toBe(true);
      expect(second.some((h) => !byB.has(partitionOfHost(h))), 'some muted host is in a partition A owns').toBe(true);
      const open = hosts('open');
      expect((await bursts([...second, ...open], open.length)).sort()).toEqual(open.sort());

      const deleted = await b.json({ method: 'DELETE', url: `/api/v1/silences/${id}` });
      expect(deleted.status).toBe(200);
      expect(((await b.json({ method: 'GET', url: '/api/v1/silences' })).body['silences'] as unknown[]).length).toBe(0);
      await waitFor(async () => (((await a.json({ method: 'GET', url: '/api/v1/silences' })).body['silences'] as unknown[]).length === 0 ? true : undefined), 30_000, 'A to list no silence');
      expect((await b.json({ method: 'DELETE', url: `/api/v1/silences/${id}` })).status).toBe(404);
      await inForce(2);
      expect((await bursts(muted('3'), 8)).sort()).toEqual(muted('3').sort());

      // An expired silence leaves the bucket: the owner of partition 0 purges it.
      const short = await b.json({ method: 'POST', url: '/api/v1/silences', body: JSON.stringify({ matchers: [{ selector: 'rule', op: '=', value: 'none' }], ends_at: new Date(Date.now() + 1_000).toISOString() }) });
      expect(short.status).toBe(201);
      const bucket = await new Kvm(nats.nc).open('silences-silences');
      const key = `s.${Buffer.from(short.body['id'] as string, 'utf8').toString('base64url')}`;
      expect((await bucket.get(key))?.operation).toBe('PUT');
      await waitFor(async () => ((await bucket.get(key))?.operation ?? 'PURGE') === 'PURGE' ? true : undefined, 30_000, 'the expired silence purged from the bucket');
    } catch (error) {
      showLogs(nodes);
      throw error;
    } finally {
      for (const d of nodes) d.kill('SIGTERM');
      await Promise.all(nodes.map((d) => d.exited));
    }
  });
});
