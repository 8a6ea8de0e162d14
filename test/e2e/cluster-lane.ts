// What the cluster e2e tests share (issue 21): the correlation-heavy lane, publishing it, reading a
// result stream once the daemons are done with the input, and how many partitions each node owns.
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { rng as prng } from '../../scripts/bench/lanes.js';
import { waitFor } from './harness.js';
import type { RunningDaemon } from './harness.js';

export const EVENTS = 1_200;
const HOSTS = 40;
const T0 = Date.parse('2024-03-01T00:00:00Z');

/**
 * Correlation-heavy: one event per second of event time over many hosts, every kind feeding a correlation.
 * Every tenth event is 150 s behind (late for the two-minute windows) and every tenth from the fifth 60 s
 * behind (within them), so partitions must judge lateness by the stream's time as a single node does.
 */
export function lane(): string[] {
  const rand = prng(21);
  const out: string[] = [];
  for (let n = 0; n < EVENTS; n++) {
    const behind = n % 10 === 0 ? 150_000 : n % 10 === 5 ? 60_000 : 0;
    const base = { '@timestamp': new Date(T0 + n * 1000 - behind).toISOString(), Computer: `host-${Math.floor(rand() * HOSTS)}`, seq: n };
    const pick = Math.floor(rand() * 5);
    if (pick === 0) out.push(JSON.stringify({ ...base, EventID: 4625, TargetUserName: `u${Math.floor(rand() * 4)}` }));
    else if (pick === 1) out.push(JSON.stringify({ ...base, EventID: 4624, TargetUserName: `u${Math.floor(rand() * 5)}` }));
    else if (pick === 2) out.push(JSON.stringify({ ...base, EventID: 1, CommandLine: 'cmd /c whoami' }));
    else if (pick === 3) out.push(JSON.stringify({ ...base, EventID: 1, CommandLine: 'net view \\\\dc01' }));
    else out.push(JSON.stringify({ ...base, EventID: 3, Bytes: Math.floor(rand() * 2000) }));
  }
  return out;
}

export async function publish(nc: NatsConnection, subject: string, payloads: readonly string[]): Promise<void> {
  const js = jetstream(nc);
  for (let i = 0; i < payloads.length; i += 200) await Promise.all(payloads.slice(i, i + 200).map((p) => js.publish(subject, p)));
}

/** Every message of a stream, in order. */
export async function streamTexts(nc: NatsConnection, stream: string): Promise<string[]> {
  const jsm = await jetstreamManager(nc);
  const info = await jsm.streams.info(stream).catch(() => undefined);
  if (info === undefined || info.state.messages === 0) return [];
  const out: string[] = [];
  for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq++) {
    const m = await jsm.streams.getMessage(stream, { seq }).catch(() => null);
    if (m !== null) out.push(m.string());
  }
  return out;
}

/** Whether the shared durable consumer of `subject` (the daemons' input) has every message acknowledged. */
async function inputDrained(nc: NatsConnection, subject: string): Promise<boolean> {
  const jsm = await jetstreamManager(nc);
  const name = subject.replace(/[.>*]/g, '-');
  const info = await jsm.consumers.info(`svc-${name}`, `svc-daemon-${name}`).catch(() => undefined);
  return info !== undefined && info.num_pending === 0 && info.num_ack_pending === 0;
}

/** Stream sequence of the last input message published on `subject`. */
async function lastInput(nc: NatsConnection, subject: string): Promise<number> {
  const jsm = await jetstreamManager(nc);
  return (await jsm.streams.info(`svc-${subject.replace(/[.>*]/g, '-')}`).catch(() => undefined))?.state.last_seq ?? 0;
}

interface PartitionView {
  readonly partition: number;
  readonly hit_seq: number;
  readonly lag: number;
  readonly floor: number;
}

/**
 * The result stream once the daemons are done with the input, however long that takes on a loaded
 * machine: every input message acknowledged, every partition owned (`partitions`, 0 for a single
 * node) with nothing waiting (lag 0) and its results out up to the last input message (its floor),
 * at least `min` results, and nothing new for 3 s. Fails only when nothing moves
 * (result count, hit sequences, ownership) for `stallMs`, and then says what was missing from `expected`.
 */
export async function converged(nc: NatsConnection, io: { readonly input: string; readonly output: string }, nodes: readonly RunningDaemon[], partitions: number, min: number, stallMs: number, expected?: (texts: readonly string[]) => string): Promise<string[]> {
  let mark = '';
  let moved = Date.now();
  let count = -1;
  let stable = Date.now();
  for (;;) {
    const jsm = await jetstreamManager(nc);
    const n = (await jsm.streams.info(io.output).catch(() => undefined))?.state.messages ?? 0;
    const views = partitions === 0 ? [] : await Promise.all(nodes.map(async (d) => ((await d.json({ method: 'GET', url: '/api/v1/cluster' })).body['owned'] as PartitionView[])));
    const owned = views.flat();
    const now = Date.now();
    const next = `${n}|${owned.map((o) => `${o.partition}:${o.hit_seq}`).join(',')}`;
    if (next !== mark) {
      mark = next;
      moved = now;
    }
    if (n !== count) {
      count = n;
      stable = now;
    }
    const last = partitions === 0 ? 0 : await lastInput(nc, io.input);
    const caughtUp = owned.length === partitions && owned.every((o) => o.lag === 0 && o.floor >= last);
    if (n >= min && caughtUp && now - stable > 3_000 && (await inputDrained(nc, io.input))) return streamTexts(nc, io.output);
    if (now - moved > stallMs) {
      const diff = expected === undefined ? '' : `\n${expected(await streamTexts(nc, io.output))}`;
      throw new Error(`${io.output} made no progress for ${stallMs} ms: ${n} results (want ≥ ${min}), last input ${await lastInput(nc, io.input)}, partitions [partition, hit_seq, lag, floor] ${JSON.stringify(views.map((v) => v.map((o) => [o.partition, o.hit_seq, o.lag, o.floor])))}${diff}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * Every node's `GET /api/v1/cluster` once each partition is owned by exactly one node and caught up:
 * a node restarted a moment ago still takes its share, and a partition between owners shows nowhere.
 */
export function ownerViews(nodes: readonly RunningDaemon[], partitions: number): Promise<Record<string, unknown>[]> {
  return waitFor(async () => {
    const views = await Promise.all(nodes.map(async (d) => (await d.json({ method: 'GET', url: '/api/v1/cluster' })).body));
    const owned = views.flatMap((v) => v['owned'] as PartitionView[]);
    return owned.length === partitions && new Set(owned.map((o) => o.partition)).size === partitions && owned.every((o) => o.lag === 0) ? views : undefined;
  }, 60_000, 'every partition owned once and caught up');
}

/** How many partitions each node owns. */
export function owned(ds: readonly RunningDaemon[]): Promise<number[]> {
  return Promise.all(ds.map(async (d) => ((await d.json({ method: 'GET', url: '/api/v1/cluster' })).body['owned'] as unknown[]).length));
}

/**
 * Runs the lane through the cluster: waits until all `partitions` are owned by the three nodes,
 * publishes half, SIGKILLs the third node once results flow, publishes the rest, waits for the
 * survivors to take its partitions over and starts it again (`restart` replaces it in `nodes`).
 */
export async function killAndRestartMidLane(nc: NatsConnection, nodes: RunningDaemon[], partitions: number, subject: string, outStream: string, restart: () => Promise<RunningDaemon>): Promise<void> {
  const events = lane();
  await waitFor(async () => {
    const n = await owned(nodes);
    return n.reduce((a, b) => a + b, 0) === partitions && n.every((x) => x > 0) ? true : undefined;
  }, 60_000, 'every partition owned');
  await publish(nc, subject, events.slice(0, EVENTS / 2));
  await waitFor(async () => ((await streamTexts(nc, outStream)).length > 20 ? true : undefined), 60_000, 'first results');
  const killed = nodes[2] as RunningDaemon;
  killed.kill('SIGKILL');
  await killed.exited;
  await publish(nc, subject, events.slice(EVENTS / 2));
  await waitFor(async () => ((await owned(nodes.slice(0, 2))).reduce((a, b) => a + b, 0) === partitions ? true : undefined), 60_000, "the dead node's partitions taken over");
  nodes[2] = await restart();
}

/** Each node's last log lines and its cluster warnings (a round or owner that gave up names what it waited on). */
export function showLogs(nodes: readonly RunningDaemon[]): void {
  for (const d of nodes) {
    const warnings = d.logs.filter((l) => l.includes('"component":"cluster"') && /"level":[45]0/.test(l));
    console.error([...warnings.slice(-12), '…', ...d.logs.filter((l) => !l.includes('"msg":"HTTP')).slice(-8)].join('\n'));
  }
}

/** Runs `body`; on a failure shows each node's logs; stops the oracle and every node (`nodes` as it is by then). */
export async function runCluster(oracle: RunningDaemon, nodes: RunningDaemon[], body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } catch (error) {
    showLogs(nodes);
    throw error;
  } finally {
    for (const d of [oracle, ...nodes]) d.kill('SIGTERM');
    await Promise.all([oracle, ...nodes].map((d) => d.exited));
  }
}

/** What `got` lacks of `expected` and holds beyond it, compared by `key` (a diagnosis for a failed run). */
export function describeDiff(expected: readonly string[], got: readonly string[], key: (text: string) => string): string {
  const left = new Map<string, number>();
  for (const t of got) left.set(key(t), (left.get(key(t)) ?? 0) + 1);
  const missing = expected.filter((t) => {
    const n = left.get(key(t)) ?? 0;
    left.set(key(t), n - 1);
    return n <= 0;
  });
  const extra = [...left].filter(([, n]) => n > 0).map(([k]) => k);
  return `missing ${missing.length}:\n${missing.slice(0, 10).join('\n')}\nextra ${extra.length}:\n${extra.slice(0, 10).join('\n')}`;
}
