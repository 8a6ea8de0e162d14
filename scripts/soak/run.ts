// `npm run soak -- --minutes N` (default 10): the bundled profile with --state-db under steady HTTP
// ingest at half the capacity measured first, a correlation-heavy mix, a reload every minute, a tail
// session that never reads, a snapshot every 30 s. Each minute it reports RSS, LMDB file size,
// /healthz latency p99 (event-loop lag as a client sees it) and queue depths; it fails if one of them
// grows without bound (linear fit over the last half), if an accepted event is not processed, or if
// a result is delivered twice.
import { spawn } from 'node:child_process';
import { createReadStream, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAIN, ROOT } from '../bench/daemon.js';
import { growthOverLastHalf, type Sample } from './growth.js';
import { soakBatch } from './mix.js';

const BATCH = 200;
const CAPACITY_MS = 15_000;
const SAMPLE_MS = 60_000;
const RELOAD_MS = 60_000;
const PROBE_MS = 100;

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

/** Result lines of the sink file and how many repeat an earlier result id (read as a stream: gigabytes). */
async function countResults(path: string): Promise<{ results: number; duplicates: number }> {
  // Sharded: one Set holds at most 2^24 entries, and a long soak delivers more results than that.
  const shards = Array.from({ length: 64 }, () => new Set<string>());
  let results = 0;
  let duplicates = 0;
  for await (const line of createInterface({ input: createReadStream(path) })) {
    if (line === '') continue;
    results++;
    // Every result line starts with its id (`{"result_id":"…"`): no need to parse gigabytes of JSON.
    const id = line.slice(RESULT_ID_AT, line.indexOf('"', RESULT_ID_AT));
    const shard = shards[hashOf(id) % shards.length] as Set<string>;
    if (shard.has(id)) duplicates++;
    else shard.add(id);
  }
  return { results, duplicates };
}

const RESULT_ID_AT = '{"result_id":"'.length;

function hashOf(text: string): number {
  let h = 0;
  for (let i = 0; i < text.length; i++) h = (h * 31 + text.charCodeAt(i)) >>> 0;
  return h;
}

async function main(): Promise<number> {
  const minutes = flag('minutes', 10);
  const dir = mkdtempSync(join(tmpdir(), 'sigmad-soak-'));
  const out = join(dir, 'out.ndjson');
  const state = join(dir, 'state');
  const child = spawn(
    process.execPath,
    [MAIN, 'daemon', '--config', join(ROOT, 'config/bundled.yaml'), '--api-addr', '127.0.0.1:0', '--state-db', state, '--output', `file://${out}`, '--snapshot-interval', '30'],
    { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'], detached: true },
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

  // A tail client that never reads.
  const tail = connect(port, '127.0.0.1');
  tail.on('error', () => undefined);
  tail.write('GET /api/v1/detections/stream HTTP/1.1\r\nHost: soak\r\n\r\n');
  tail.pause();

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
    if (Date.now() >= nextSample) {
      nextSample += SAMPLE_MS;
      const sample: Sample = {
        minute: samples.length + 1,
        rss: rssBytes(pid),
        lmdb: fileSize(join(state, 'data.mdb')),
        lagP99Ms: p99(latencies.splice(0)),
        inputQueue: await metric(base, 'svc_input_queue_depth'),
        outputQueue: await metric(base, 'svc_output_queue_depth'),
        processed: await metric(base, 'svc_events_processed_total'),
        tailDropped: await metric(base, 'svc_tail_detections_dropped_total'),
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
  tail.destroy();
  child.kill('SIGTERM');
  const code = await exited;
  if (code !== 0 && !crashed) problems.push(`the daemon exited ${String(code)} on SIGTERM`);
  const { results, duplicates } = await countResults(out);
  if (duplicates > 0) problems.push(`${duplicates} results delivered twice`);
  problems.push(...growthOverLastHalf(samples));
  console.log(JSON.stringify({ accepted, processed, results, duplicates, reloads, problems }));
  rmSync(dir, { recursive: true, force: true });
  return problems.length === 0 ? 0 : 1;
}

process.exitCode = await main();
