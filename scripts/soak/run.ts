// `npm run soak -- --minutes N` (default 10): the bundled profile with --state-db under steady HTTP
// ingest at half the capacity measured first, a correlation-heavy mix, a reload every minute, a tail
// session and a tap session that never read, webhooks whose receiver fails 1% of requests, a
// snapshot every 30 s. Each minute it reports RSS, JavaScript heap (main thread and workers, from a
// diagnostic report), LMDB file size, /healthz latency p99 (event-loop lag as a client sees it) and
// queue depths; it fails if one of them grows without bound (linear fit over the last half), if an
// accepted event is not processed, or if a result is delivered twice (file sink or webhook) or never
// reaches its webhook.
import { spawn } from 'node:child_process';
import { createReadStream, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAIN, ROOT } from '../bench/daemon.js';
import { growthOverLastHalf, type Sample } from './growth.js';
import { soakBatch } from './mix.js';
import { startReceiver } from './receiver.js';

const BATCH = 200;
const CAPACITY_MS = 15_000;
const SAMPLE_MS = 60_000;
const RELOAD_MS = 60_000;
const PROBE_MS = 100;
/** A tap session lasts at most daemon.tap.max_duration (5m): a new stalled one follows each. */
const TAP_MS = 300_000;
const HOOKS = ['detection', 'correlation'] as const;
const REPORT_WAIT_MS = 30_000;

function flag(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const v = i === -1 ? Number.NaN : Number(process.argv[i + 1]);
  return Number.isFinite(v) && v > 0 ? v : fallback;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function metric(base: string, series: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  let sum = 0;
  for (const m of text.matchAll(new RegExp(`^${series}(?:\\{[^}]*\\})? (\\S+)$`, 'gm'))) sum += Number(m[1]);
  return sum;
}

function rssBytes(pid: number): number {
  const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb ?? 0) * 1024;
}

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

function p99(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? 0;
}

/**
 * Result lines of the sink file, how many repeat an earlier result id (read as a stream: gigabytes),
 * and the ids of the detection and correlation results (those the webhooks send).
 */
async function countResults(path: string): Promise<{ results: number; duplicates: number; hooked: string[] }> {
  // Sharded: one Set holds at most 2^24 entries, and a long soak delivers more results than that.
  const shards = Array.from({ length: 64 }, () => new Set<string>());
  let results = 0;
  let duplicates = 0;
  const hooked: string[] = [];
  for await (const line of createInterface({ input: createReadStream(path) })) {
    if (line === '') continue;
    results++;
    // Every result line starts with its id (`{"result_id":"…"`): no need to parse gigabytes of JSON.
    const id = line.slice(RESULT_ID_AT, line.indexOf('"', RESULT_ID_AT));
    const shard = shards[hashOf(id) % shards.length] as Set<string>;
    if (shard.has(id)) duplicates++;
    else shard.add(id);
    if (line.includes('"correlation_type":') || line.includes('"matched_fields":')) hooked.push(id);
  }
  return { results, duplicates, hooked };
}

const RESULT_ID_AT = '{"result_id":"'.length;

/** JavaScript heap in use, main thread plus workers, from a diagnostic report the daemon writes on SIGUSR2. */
async function heapBytes(pid: number, dir: string): Promise<number> {
  process.kill(pid, 'SIGUSR2');
  const deadline = Date.now() + REPORT_WAIT_MS;
  while (Date.now() < deadline) {
    const file = readdirSync(dir).find((f) => f.endsWith('.json'));
    if (file !== undefined) {
      try {
        const report = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Report;
        rmSync(join(dir, file));
        return [report, ...(report.workers ?? [])].reduce((sum, r) => sum + r.javascriptHeap.usedMemory, 0);
      } catch {
        // Still being written.
      }
    }
    await sleep(100);
  }
  return Number.NaN;
}

interface Report {
  readonly javascriptHeap: { readonly usedMemory: number };
  readonly workers?: readonly Report[];
}

/** A live session that never reads: the daemon must buffer, drop and count, never stall or grow. */
function stalledSession(port: number, path: string): { destroy: () => void } {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  socket.write(`GET ${path} HTTP/1.1\r\nHost: soak\r\n\r\n`);
  socket.pause();
  return socket;
}

function hashOf(text: string): number {
  let h = 0;
  for (let i = 0; i < text.length; i++) h = (h * 31 + text.charCodeAt(i)) >>> 0;
  return h;
}

async function main(): Promise<number> {
  const minutes = flag('minutes', 10);
  const dir = mkdtempSync(join(tmpdir(), 'sigmad-soak-'));
  const out = join(dir, 'out.ndjson');
  const dlq = join(dir, 'dlq.ndjson');
  const state = join(dir, 'state');
  const reports = join(dir, 'reports');
  mkdirSync(reports);
  const receiver = await startReceiver();
  // Every detection and correlation result, signed (so each request carries `webhook-id:
  // msg_<result_id>`), retried quickly enough that a 1% failure never exhausts its attempts.
  const hook = (kind: string): string =>
    `  - id: ${kind}s\n    kind: ${kind}\n    url: "${receiver.url}/${kind}"\n    retry: { attempts: 10, backoff: 10ms, max_backoff: 200ms }\n    queue_size: 1000000\n    signing: { secret_env: SOAK_HOOK_SECRET }\n`;
  writeFileSync(join(dir, 'hooks.yml'), `webhooks:\n${HOOKS.map(hook).join('')}`);
  const child = spawn(
    process.execPath,
    [
      '--report-on-signal', '--report-signal=SIGUSR2', `--report-directory=${reports}`, '--report-compact',
      MAIN, 'daemon', '--config', join(ROOT, 'config/bundled.yaml'), '--api-addr', '127.0.0.1:0', '--state-db', state, '--output', `file://${out}`,
      '--snapshot-interval', '30', '--enable-tap', '--webhook', join(dir, 'hooks.yml'), '--dlq', `file://${dlq}`,
    ],
    { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'], detached: true, env: { ...process.env, SOAK_HOOK_SECRET: 'soak' } },
  );
  const pid = child.pid ?? 0;
  const killDaemon = (): void => {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  };
  process.once('exit', killDaemon);
  // Interrupted: the daemon (in its own process group) goes too.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));
  let log = '';
  const port = await new Promise<number>((done, fail) => {
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      log += c;
      if (log.length > 1_000_000) log = log.slice(-100_000);
      const m = /"addr":"127\.0\.0\.1:(\d+)","msg":"listening"/.exec(log);
      if (m?.[1] !== undefined && log.includes('"msg":"daemon ready"')) done(Number(m[1]));
    });
    child.once('exit', (code) => fail(new Error(`daemon exited (${String(code)}) during start-up:\n${log.slice(-2000)}`)));
  });
  const base = `http://127.0.0.1:${port}`;
  const exited = new Promise<number | string>((r) => child.once('exit', (code, signal) => r(code ?? signal ?? -1)));
  let crashed = false;
  void exited.then(() => (crashed = true));

  let accepted = 0;
  let seq = 0;
  const postBatch = async (): Promise<void> => {
    const res = await fetch(`${base}/api/v1/events`, { method: 'POST', body: soakBatch(seq++, BATCH), headers: { 'content-type': 'application/x-ndjson' } });
    const body = (await res.json()) as { accepted?: number };
    if (res.status === 200) accepted += body.accepted ?? 0;
  };

  // Capacity: two posters flat out.
  const t0 = Date.now();
  const before = await metric(base, 'svc_events_processed_total');
  await Promise.all([0, 1].map(async () => {
    while (Date.now() - t0 < CAPACITY_MS) await postBatch();
  }));
  const capacity = ((await metric(base, 'svc_events_processed_total')) - before) / ((Date.now() - t0) / 1000);
  const rate = capacity / 2;
  console.log(JSON.stringify({ capacity_events_per_s: Math.round(capacity), steady_events_per_s: Math.round(rate), minutes }));

  // A tail client and a tap client that never read.
  const tail = stalledSession(port, '/api/v1/detections/stream');
  let tap = stalledSession(port, '/api/v1/tap?duration=5m');
  let nextTap = Date.now() + TAP_MS;

  const samples: Sample[] = [];
  const latencies: number[] = [];
  const end = Date.now() + minutes * 60_000;
  let nextReload = Date.now() + RELOAD_MS;
  let nextSample = Date.now() + SAMPLE_MS;
  let reloads = 0;
  const poster = (async () => {
    const started = Date.now();
    let sent = 0;
    while (Date.now() < end && !crashed) {
      // Paced: the batches due by now at the steady rate.
      const due = ((Date.now() - started) / 1000) * rate;
      if (sent * BATCH < due) {
        sent++;
        await postBatch().catch(() => undefined);
      } else await sleep(10);
    }
  })();
  while (Date.now() < end && !crashed) {
    const t = performance.now();
    await fetch(`${base}/healthz`).then((r) => r.text()).catch(() => undefined);
    latencies.push(performance.now() - t);
    if (Date.now() >= nextReload) {
      nextReload += RELOAD_MS;
      reloads++;
      await fetch(`${base}/api/v1/reload`, { method: 'POST' }).catch(() => undefined);
    }
    if (Date.now() >= nextTap) {
      nextTap += TAP_MS;
      tap.destroy();
      tap = stalledSession(port, '/api/v1/tap?duration=5m');
    }
    if (Date.now() >= nextSample) {
      nextSample += SAMPLE_MS;
      const sample: Sample = {
        minute: samples.length + 1,
        rss: rssBytes(pid),
        heap: await heapBytes(pid, reports),
        lmdb: fileSize(join(state, 'data.mdb')),
        lagP99Ms: p99(latencies.splice(0)),
        inputQueue: await metric(base, 'svc_input_queue_depth'),
        outputQueue: await metric(base, 'svc_output_queue_depth'),
        sinkQueue: await metric(base, 'svc_sink_queue_depth'),
        processed: await metric(base, 'svc_events_processed_total'),
        tailDropped: await metric(base, 'svc_tail_detections_dropped_total'),
        tapDropped: await metric(base, 'svc_tap_events_dropped_total'),
        webhookFailed: receiver.failed(),
      };
      samples.push(sample);
      console.log(JSON.stringify(sample));
    }
    await sleep(PROBE_MS);
  }
  await poster;
  const problems: string[] = [];
  if (crashed) problems.push(`the daemon exited during the soak (${String(await exited)})`);
  // Every accepted event is processed (HTTP answers only after the commit), then it stops cleanly.
  const deadline = Date.now() + 60_000;
  while (!crashed && (await metric(base, 'svc_events_processed_total')) < accepted && Date.now() < deadline) await sleep(500);
  const processed = crashed ? Number.NaN : await metric(base, 'svc_events_processed_total');
  if (!(processed >= accepted)) problems.push(`accepted ${accepted} events, processed ${processed}`);
  // The webhooks catch up (their queues drain) before the stop, so each result must have reached its webhook.
  while (!crashed && (await metric(base, 'svc_sink_queue_depth')) > 0 && Date.now() < deadline + 60_000) await sleep(500);
  let hookDropped = 0;
  for (const kind of HOOKS) hookDropped += crashed ? 0 : await metric(base, `svc_sink_dropped_total{sink="${kind}s"}`);
  tail.destroy();
  tap.destroy();
  child.kill('SIGTERM');
  const code = await exited;
  if (code !== 0 && !crashed) problems.push(`the daemon exited ${String(code)} on SIGTERM`);
  const { results, duplicates, hooked } = await countResults(out);
  if (duplicates > 0) problems.push(`${duplicates} results delivered twice`);
  const dead = new Set(readFileSync(dlq, { encoding: 'utf8', flag: 'a+' }).match(/"result_id":"[^"]+"/g)?.map((m) => m.slice(13, -1)));
  const neverSent = hooked.filter((id) => !receiver.accepted.has(id) && !dead.has(id)).length;
  if (neverSent > 0) problems.push(`${neverSent} results never reached their webhook (nor the DLQ)`);
  if (receiver.duplicates() > 0) problems.push(`${receiver.duplicates()} results accepted twice by a webhook`);
  if (hookDropped > 0) problems.push(`the webhook queues dropped ${hookDropped} results`);
  problems.push(...growthOverLastHalf(samples));
  const webhook = { sent: receiver.accepted.size, failed_500: receiver.failed(), twice: receiver.duplicates(), dead_lettered: dead.size, never_sent: neverSent };
  console.log(JSON.stringify({ accepted, processed, results, duplicates, webhook, reloads, problems }));
  receiver.server.close();
  rmSync(dir, { recursive: true, force: true });
  return problems.length === 0 ? 0 : 1;
}

process.exitCode = await main();
