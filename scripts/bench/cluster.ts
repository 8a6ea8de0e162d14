// Cluster mode (issue 21): throughput of 1, 2 and 3 nodes sharing one input on a private nats-server,
// with daemon CPU per event per node (the machine has 2 cores, so wall-clock scaling is bounded; CPU per
// event shows what each node pays), the same with an alert pipeline and a risk layer partitioned by host
// (correlation results then travel on to the partition of their host), and the takeover time of a
// partition holding 10k correlation groups.
// `npm run bench:cluster`.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstream } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/transport-node';
import { startNatsServer } from '../nats-server.js';
import { printRows } from './bench-row.js';
import type { BenchRow } from './bench-row.js';
import { MAIN, ROOT, post } from './daemon.js';

const RULES = join(ROOT, 'test/fixtures/daemon/crash-rules');
const EVENTS = 20_000;
const GROUPS = 10_000;
const T0 = Date.parse('2024-03-01T00:00:00Z');

interface Node {
  readonly proc: ChildProcess;
  readonly port: number;
}

/** A daemon node; resolves once it answers on its API port. */
function startNode(args: readonly string[]): Promise<Node> {
  const proc = spawn(process.execPath, [MAIN, 'daemon', '--config', join(ROOT, 'test/fixtures/daemon/empty.yaml'), '--api-addr', '127.0.0.1:0', '--detect-workers', '0', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  return new Promise((resolve, reject) => {
    let log = '';
    let port = 0;
    proc.once('exit', (code) => reject(new Error(`node exited (${String(code)}):\n${log.slice(-2000)}`)));
    proc.stderr?.setEncoding('utf8').on('data', (c: string) => {
      log += c;
      const m = /"addr":"127\.0\.0\.1:(\d+)"/.exec(log);
      if (m !== null) port = Number(m[1]);
      if (port !== 0 && log.includes('"msg":"daemon ready"')) {
        proc.stderr?.removeAllListeners('data');
        proc.stderr?.resume();
        resolve({ proc, port });
      }
    });
  });
}

async function stopNode(n: Node): Promise<void> {
  n.proc.kill('SIGTERM');
  if (n.proc.exitCode === null) await new Promise((r) => n.proc.once('exit', r));
}

function cpuSeconds(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(f[11]) + Number(f[12])) / 100;
}

async function metric(port: number, name: string): Promise<number> {
  const text = await post(port, '/metrics', '');
  return Number(new RegExp(`^${name} (\\S+)`, 'm').exec(text)?.[1] ?? 0);
}

async function until(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function publish(nc: NatsConnection, subject: string, lines: readonly string[]): Promise<void> {
  const js = jetstream(nc);
  for (let i = 0; i < lines.length; i += 500) await Promise.all(lines.slice(i, i + 500).map((l) => js.publish(subject, l)));
}

/** Failed logons over `hosts` hosts, `stepMs` apart in event time: every one a correlation hit. */
function logons(n: number, hosts: number, stepMs: number): string[] {
  return Array.from({ length: n }, (_, i) => JSON.stringify({ '@timestamp': new Date(T0 + i * stepMs).toISOString(), Computer: `host-${i % hosts}`, EventID: 4625, TargetUserName: `u${i % 7}` }));
}

function clusterArgs(url: string, name: string, node: string, extra: readonly string[] = []): string[] {
  return ['--rules', RULES, '--input', `${url}/${name}.in`, '--input-format', 'json', '--cluster', url, '--cluster-name', name, '--cluster-node-id', node, '--cluster-partitions', '16', '--cluster-lease-ttl-ms', '3000', ...extra];
}

async function owned(nodes: readonly Node[]): Promise<number> {
  let sum = 0;
  for (const n of nodes) sum += await metric(n.port, 'svc_cluster_partitions_owned');
  return sum;
}

/** An alert pipeline (dedup and incidents by host) and a risk layer (entity: the host) for the stateful lane. */
function statefulArgs(dir: string): string[] {
  const alerts = join(dir, 'alerts.yaml');
  const risk = join(dir, 'risk.yaml');
  writeFileSync(alerts, 'dedup:\n  fingerprint: [correlation.group_key.Computer, rule]\ngroup:\n  by: [correlation.group_key.Computer]\n');
  writeFileSync(risk, 'score:\n  default_score: 10\nobjects:\n  - { type: host, selector: correlation.group_key.Computer }\nincident:\n  window: 1h\n  score_threshold: 50\n');
  return ['--alert-pipeline', alerts, '--risk', risk];
}

async function throughput(url: string, nc: NatsConnection, count: number, extra: readonly string[] = []): Promise<BenchRow[]> {
  const name = `bench${count}${extra.length > 0 ? 's' : ''}`;
  const lane = extra.length > 0 ? ' with alert pipeline and risk' : '';
  const nodes = await Promise.all(Array.from({ length: count }, (_, i) => startNode(clusterArgs(url, name, `n${i}`, extra))));
  try {
    await until(async () => (await owned(nodes)) === 16, 30_000, 'partitions owned');
    const cpu0 = nodes.map((n) => cpuSeconds(n.proc.pid as number));
    const started = performance.now();
    await publish(nc, `${name}.in`, logons(EVENTS, 500, 1000));
    const processed = async (): Promise<number[]> => Promise.all(nodes.map((n) => metric(n.port, 'svc_events_processed_total')));
    await until(async () => (await processed()).reduce((a, b) => a + b, 0) >= EVENTS, 120_000, 'events processed');
    const seconds = (performance.now() - started) / 1000;
    const per = await processed();
    const cpu = nodes.map((n, i) => cpuSeconds(n.proc.pid as number) - (cpu0[i] as number));
    const totalCpu = cpu.reduce((a, b) => a + b, 0);
    return [
      { name: `${count} node(s)${lane}: events/s (all nodes)`, value: Math.round(EVENTS / seconds), unit: 'events/s' },
      { name: `${count} node(s)${lane}: CPU per event (all nodes, both stages)`, value: Math.round((totalCpu / EVENTS) * 1e6), unit: 'µs' },
      ...nodes.map((_, i) => ({ name: `${count} node(s)${lane}: node ${i} events / CPU per own event`, value: Math.round(((cpu[i] as number) / Math.max(1, per[i] as number)) * 1e6), unit: `µs (${per[i]} events)` })),
    ];
  } finally {
    await Promise.all(nodes.map(stopNode));
  }
}

/** One partition filled with GROUPS groups by one node, handed back on SIGTERM, then taken over by a new node. */
async function takeover(url: string, nc: NatsConnection): Promise<BenchRow[]> {
  const name = 'benchtake';
  const args = (node: string): string[] => clusterArgs(url, name, node, ['--cluster-partitions', '1', '--max-state-entries', String(GROUPS * 2)]);
  const first = await startNode(args('a'));
  await until(async () => (await owned([first])) === 1, 30_000, 'partition owned');
  // Each host once, all within the 2-minute window: GROUPS open groups.
  await publish(nc, `${name}.in`, logons(GROUPS, GROUPS, 5));
  const groups = async (n: Node): Promise<number> => {
    const body = JSON.parse(await post(n.port, '/api/v1/cluster', '')) as { owned: { groups: number; lag: number }[] };
    return body.owned[0]?.lag === 0 ? (body.owned[0]?.groups ?? 0) : 0;
  };
  await until(async () => (await groups(first)) >= GROUPS, 120_000, 'groups built');
  await stopNode(first);
  const started = performance.now();
  const second = await startNode(args('b'));
  const ready = performance.now();
  try {
    await until(async () => (await groups(second)) >= GROUPS, 60_000, 'groups taken over');
    const done = performance.now();
    return [
      { name: `takeover of a partition with ${GROUPS} groups (node start to groups live)`, value: Math.round(done - started), unit: 'ms' },
      { name: 'of which after the node was ready (snapshot load + replay)', value: Math.round(done - ready), unit: 'ms' },
    ];
  } finally {
    await stopNode(second);
  }
}

const server = await startNatsServer();
const nc = await connect({ servers: server.url });
try {
  const rows: BenchRow[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'bench-cluster-'));
  for (const count of [1, 2, 3]) rows.push(...(await throughput(server.url, nc, count)));
  for (const count of [1, 3]) rows.push(...(await throughput(server.url, nc, count, statefulArgs(dir))));
  rmSync(dir, { recursive: true, force: true });
  rows.push(...(await takeover(server.url, nc)));
  printRows('cluster mode (issue 21)', rows);
} finally {
  await nc.close();
  await server.stop();
}
