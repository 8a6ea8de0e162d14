// Daemon throughput over HTTP: concurrent NDJSON posters (500-line batches from the bench lanes)
// against `sigmad daemon` with the full corpus, measured from svc_events_processed_total: in memory
// and with --state-db (default detection workers), and in memory with detection inline. Run after
// `npm run build`: `npm run bench:daemon`; extra daemon flags may follow (`-- --detect-workers 2`).
// `SIGMAD_BENCH_ONLY=otlp` runs only the NDJSON and OTLP/HTTP ingest rows (memory state), interleaved,
// `SIGMAD_BENCH_RUNS` times (3); with `SIGMAD_BENCH_BASELINE=<checkout>` (built) its daemon's OTLP and
// NDJSON rows are interleaved too, so a change is measured against its base in one run.
// `SIGMAD_BENCH_ONLY=lmdb` runs only the `--state-db` rows against the engine (issue 19 §4), a baseline's
// interleaved; every mode prints how many cores each thread kept busy (main, workers, other, posters).
import { spawn, spawnSync } from 'node:child_process';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { builtin, loadCorpus } from '../conformance/conformance.js';
import { startNatsServer } from '../nats-server.js';
import { isMain, median, printRows } from './bench-row.js';
import type { BenchRow } from './bench-row.js';
import { engineRate } from './engine.js';
import { processCreationLane } from './lanes.js';
import { decodeJsonLogs, decodeProtobufLogs, exportLogsRequestType } from '../../protocol/index.js';

// Runs from dist/scripts/bench: the package root holds package.json.
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), existsSync(resolve(dirname(fileURLToPath(import.meta.url)), '../../package.json')) ? '../..' : '../../..');
/** The `sigmad` CLI of the build in `root`: its bundle (dist/bin, what ships), or tsc's output for a build that predates it. */
export function cliOf(root: string): string {
  const bundled = join(root, 'dist/bin/sigmad.js');
  return existsSync(bundled) ? bundled : join(root, 'dist/cli/main.js');
}
export const MAIN = cliOf(ROOT);
const BATCH_LINES = 500;
/** Concurrent posters: a handful of shippers, as a deployment sends (`SIGMAD_BENCH_POSTERS` to probe pipeline depth). */
const POSTERS = Number(process.env['SIGMAD_BENCH_POSTERS'] ?? 4);
/**
 * The steady state: each isolate's first major collections after building its rules (and main's after
 * dropping its evaluators) are a one-time burst of V8's concurrent marking on its helper threads; a span
 * starting 1 s after the hand-over caught it and reported several times the steady state's CPU per event
 * on other threads.
 */
const WARMUP_EVENTS = 50_000;
/** A daemon that does not get through its warm-up events in this long is measured anyway. */
const WARMUP_MAX_MS = 60_000;
const MEASURE_MS = 4_000;
const RUNS = Number(process.env['SIGMAD_BENCH_RUNS'] ?? 3);

/** One request on a fresh connection, or on `agent`'s kept-alive sockets (the posters'). */
export function post(port: number, path: string, body: string | Uint8Array, headers: Readonly<Record<string, string>> = {}, agent: Agent | false = false): Promise<string> {
  return new Promise((done, fail) => {
    const req = request({ host: '127.0.0.1', port, method: body.length === 0 ? 'GET' : 'POST', path, headers, agent }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (c: string) => (text += c));
      res.on('end', () => done(text));
    });
    req.on('error', fail);
    req.end(body);
  });
}

export async function processed(port: number): Promise<number> {
  const text = await post(port, '/metrics', '');
  return Number(/^svc_events_processed_total (\d+)/m.exec(text)?.[1] ?? 0);
}

/** Resolves once the daemon has processed WARMUP_EVENTS more events (at most WARMUP_MAX_MS). */
export async function warmUp(port: number): Promise<void> {
  const from = await processed(port);
  const until = performance.now() + WARMUP_MAX_MS;
  while (performance.now() < until && (await processed(port)) - from < WARMUP_EVENTS) await new Promise((r) => setTimeout(r, 250));
}

/** user + system CPU seconds so far of a process, or of its main thread (Linux /proc). */
export function cpuSeconds(pid: number, mainThread = false): number {
  const fields = readFileSync(mainThread ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** CPU seconds so far of each thread of a process, by thread id (Linux /proc; a thread that ended is left out). */
export function threadCpuSeconds(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const fields = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
      out.set(tid, (Number(fields[11]) + Number(fields[12])) / 100);
    } catch {
      // The thread ended between listing and reading.
    }
  }
  return out;
}

export interface ModeResult {
  readonly eventsPerSecond: number;
  /** Daemon CPU per event: steadier than throughput on a machine shared with the posters. */
  readonly cpuMicrosPerEvent: number;
  /** The main thread's share (HTTP, correlation, commits; all of it with --detect-workers 0). */
  readonly mainMicrosPerEvent: number;
  /** The detection workers (the `--detect-workers` busiest threads besides main). */
  readonly workersMicrosPerEvent: number;
  /** The other threads of the process: V8's GC and compiler helpers, libuv's pool, LMDB's writer. */
  readonly otherMicrosPerEvent: number;
  /**
   * CPU seconds per wall second over the span (1 = a core kept busy): the daemon's main thread, each
   * detection worker (busiest first), its other threads together, and the posters (this process).
   */
  readonly utilisation: { readonly main: number; readonly workers: readonly number[]; readonly other: number; readonly client: number };
  /** The measured span on the monotonic clock (see `monotonicUs`). */
  readonly measured: { readonly fromUs: number; readonly toUs: number };
}

/** The monotonic clock in µs: the clock V8's CPU profiles stamp their samples with (Linux). */
function monotonicUs(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

/** What one daemon sustains under the posters; `nodeFlags` go to node itself (the profile's `--cpu-prof`). */
/** Where the posters send their bodies: NDJSON ingest unless told otherwise (the OTLP lane). */
export interface PostTarget {
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
}
const NDJSON_INGEST: PostTarget = { path: '/api/v1/events', headers: {} };

/**
 * A measurement over a fixed number of events instead of MEASURE_MS: `start` (e.g. clients of live
 * sessions) runs after the warm-up, right before it, and its result is called after the run. For a
 * phase that lasts a number of events rather than a time (tap buffers filling).
 */
export interface EventWindow {
  readonly events: number;
  readonly start?: (port: number) => Promise<() => void>;
}

/** How often `untilProcessed` reads the daemon's counter (a /metrics scrape). */
export const POLL_MS = 20;

/** Resolves once the daemon has processed `target` events (polled). */
export async function untilProcessed(port: number, target: number): Promise<void> {
  while ((await processed(port)) < target) await new Promise((r) => setTimeout(r, POLL_MS));
}

/** A daemon of the bench, started and ready (its listener up and its rules loaded). */
export interface BenchDaemon {
  readonly port: number;
  readonly pid: number;
  /** Settles once its detection workers have taken over from main (or it runs without workers). */
  readonly handedOver: Promise<void>;
  /** Its `--detect-workers` count, as it logged it. */
  detectWorkers(): number;
  /** SIGTERM, then its temporary directory removed. */
  stop(): Promise<void>;
}

/** Starts `sigmad daemon` with the full corpus and the sysmon pipeline over HTTP input, plus `extra` flags (`$DIR`: its temporary directory). */
export async function startDaemon(extra: readonly string[], nodeFlags: readonly string[] = [], entry: string = MAIN): Promise<BenchDaemon> {
  const dir = mkdtempSync(join(tmpdir(), 'sigmad-bench-'));
  writeFileSync(join(dir, 'empty.yaml'), 'daemon: {}\n');
  const args = [entry, 'daemon', '--config', join(dir, 'empty.yaml'), '--rules', join(ROOT, 'rules'), '--pipeline', 'sysmon', '--input', 'http', '--api-addr', '127.0.0.1:0', ...extra.map((a) => a.replace('$DIR', dir))];
  const child = spawn(process.execPath, [...nodeFlags, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  // The listener is up before the rules load: post only once the daemon says it is ready, and measure
  // only once its detection workers are (until then the main thread detects: issue 19 §2).
  let detectWorkers = 0;
  let workersReady: () => void = () => undefined;
  let workersFailed: (error: Error) => void = () => undefined;
  const handedOver = new Promise<void>((done, fail) => ((workersReady = done), (workersFailed = fail)));
  const port = await new Promise<number>((done, fail) => {
    let buf = '';
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      buf += c;
      const m = /"addr":"127\.0\.0\.1:(\d+)","msg":"listening"/.exec(buf);
      if (m?.[1] !== undefined && buf.includes('"msg":"daemon ready"')) done(Number(m[1]));
      detectWorkers = Number(/"workers":(\d+)[^\n]*"msg":"detection ready"/.exec(buf)?.[1] ?? detectWorkers);
      // Main evaluates until its workers have built their rules: measure the steady state after that.
      if (/"workers":0\b[^\n]*"msg":"detection ready"/.test(buf) || buf.includes('"msg":"detection workers ready') || buf.includes('"msg":"detection workers did not start')) workersReady();
    });
    child.on('exit', (code) => {
      const error = new Error(`daemon exited (${String(code)}) before listening or its workers were ready:\n${buf.slice(-2000)}`);
      fail(error);
      workersFailed(error);
    });
  });
  return {
    port,
    pid: child.pid as number,
    handedOver,
    detectWorkers: () => detectWorkers,
    async stop() {
      child.kill('SIGTERM');
      await new Promise((r) => child.on('exit', r));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * POSTERS concurrent posters cycling through `bodies` until the returned function is called (it resolves
 * once they have stopped). Like a log shipper, each keeps its connection open and sends bytes encoded
 * once, so the client's own CPU (which shares the cores with the daemon) stays small.
 */
export function startPosters(port: number, bodies: readonly (string | Uint8Array)[], target: PostTarget = NDJSON_INGEST): () => Promise<void> {
  let stop = false;
  const agent = new Agent({ keepAlive: true, maxSockets: POSTERS });
  const encoded = bodies.map((b) => (typeof b === 'string' ? Buffer.from(b) : b));
  const poster = async (k: number): Promise<void> => {
    for (let i = k; !stop; i += POSTERS) {
      await post(port, target.path, encoded[i % encoded.length] ?? '', target.headers, agent);
    }
  };
  // Without bodies the daemon feeds itself (a NATS input over a pre-filled stream).
  const posters = bodies.length === 0 ? [] : Array.from({ length: POSTERS }, (_, k) => poster(k));
  return async () => {
    stop = true;
    await Promise.all(posters);
    agent.destroy();
  };
}

export async function runMode(
  extra: readonly string[],
  bodies: readonly (string | Uint8Array)[],
  nodeFlags: readonly string[] = [],
  /** Started once the daemon is ready, before the posters; its result is called after the run (e.g. stalled tap clients). */
  during?: (port: number) => Promise<() => void>,
  target: PostTarget = NDJSON_INGEST,
  window?: EventWindow,
  /** The daemon's entry point: this checkout's unless a baseline's. */
  entry: string = MAIN,
): Promise<ModeResult> {
  const daemon = await startDaemon(extra, nodeFlags, entry);
  const { port, pid } = daemon;
  const endDuring = await during?.(port);
  const stopPosters = startPosters(port, bodies, target);
  await daemon.handedOver;
  await warmUp(port);
  const endWindow = await window?.start?.(port);
  const before = await processed(port);
  const cpu0 = cpuSeconds(pid);
  const main0 = cpuSeconds(pid, true);
  const threads0 = threadCpuSeconds(pid);
  const client0 = process.cpuUsage();
  const t0 = performance.now();
  const fromUs = monotonicUs();
  await (window === undefined ? new Promise((r) => setTimeout(r, MEASURE_MS)) : untilProcessed(port, before + window.events));
  const toUs = monotonicUs();
  const client = process.cpuUsage(client0);
  const after = await processed(port);
  const cpu = cpuSeconds(pid) - cpu0;
  const main = cpuSeconds(pid, true) - main0;
  // Threads are not named: the detection workers are taken to be the busiest threads besides main.
  const threadCpu = [...threadCpuSeconds(pid)].filter(([tid]) => tid !== String(pid)).map(([tid, seconds]) => seconds - (threads0.get(tid) ?? 0));
  const workerCpu = threadCpu.sort((a, b) => b - a).slice(0, daemon.detectWorkers());
  const workers = workerCpu.reduce((a, b) => a + b, 0);
  const seconds = (performance.now() - t0) / 1000;
  const share = (s: number): number => Number((s / seconds).toFixed(2));
  await stopPosters();
  endDuring?.();
  endWindow?.();
  await daemon.stop();
  const events = after - before;
  const perEvent = (s: number): number => (events > 0 ? Number(((s * 1e6) / events).toFixed(1)) : Number.NaN);
  return {
    eventsPerSecond: Math.round(events / seconds),
    cpuMicrosPerEvent: perEvent(cpu),
    mainMicrosPerEvent: perEvent(main),
    workersMicrosPerEvent: perEvent(workers),
    otherMicrosPerEvent: perEvent(cpu - main - workers),
    utilisation: { main: share(main), workers: workerCpu.map(share), other: share(cpu - main - workers), client: share((client.user + client.system) / 1e6) },
    measured: { fromUs, toUs },
  };
}

/** The lane's lines as POST bodies of BATCH_LINES lines each. */
export function postBodies(lines: readonly string[]): string[] {
  const bodies: string[] = [];
  for (let i = 0; i + BATCH_LINES <= lines.length; i += BATCH_LINES) bodies.push(`${lines.slice(i, i + BATCH_LINES).join('\n')}\n`);
  return bodies;
}

/** The lane's lines as OTLP exports of BATCH_LINES records, each event's fields as record attributes: protobuf and OTLP/JSON. */
export function otlpBodies(lines: readonly string[]): { readonly protobuf: Uint8Array[]; readonly json: string[] } {
  const attributeValue = (v: unknown) => (typeof v === 'number' && Number.isSafeInteger(v) ? { intValue: v } : typeof v === 'boolean' ? { boolValue: v } : { stringValue: typeof v === 'string' ? v : JSON.stringify(v) });
  const requests = postBodies(lines).map((body) => {
    const logRecords = body.trim().split('\n').map((line) => ({ attributes: Object.entries(JSON.parse(line) as Record<string, unknown>).map(([key, v]) => ({ key, value: attributeValue(v) })) }));
    return { resourceLogs: [{ scopeLogs: [{ logRecords }] }] };
  });
  return {
    protobuf: requests.map((r) => exportLogsRequestType().encode(exportLogsRequestType().fromObject(r)).finish()),
    json: requests.map((r) => JSON.stringify(r)),
  };
}
/**
 * The OTLP lane is the NDJSON lane: each export's records flatten (§17.3: no time, severity or resource,
 * so no key of their own) to exactly the NDJSON lines, byte for byte, so the detection workers parse and
 * evaluate the same events and the rows differ only in how the events arrive. Checked, not assumed.
 */
function checkSameEvents(exports: ReturnType<typeof otlpBodies>, bodies: readonly Uint8Array[]): void {
  const lines = (events: unknown): string[] => (Array.isArray(events) ? events : (events as { texts(): string[] }).texts());
  for (const [i, body] of bodies.entries()) {
    const ndjson = Buffer.from(body).toString('utf8').trimEnd().split('\n');
    for (const decoded of [decodeProtobufLogs(exports.protobuf[i] as Uint8Array), decodeJsonLogs(Buffer.from(exports.json[i] as string))]) {
      if (!decoded.ok || JSON.stringify(lines(decoded.events)) !== JSON.stringify(ndjson)) throw new Error(`OTLP export ${String(i)} does not flatten to the NDJSON body's lines`);
    }
  }
}

export const OTLP_PROTOBUF_INGEST: PostTarget = { path: '/v1/logs', headers: { 'content-type': 'application/x-protobuf' } };
export const OTLP_JSON_INGEST: PostTarget = { path: '/v1/logs', headers: { 'content-type': 'application/json' } };

export const DAEMON_BASE_FLAGS: readonly string[] = ['--buffer-size', '20000', '--batch-size', `${BATCH_LINES}`];

/** Messages pre-filled for the NATS runs: more than the fastest run consumes in warm-up plus measurement. */
const NATS_MESSAGES = 300_000;

/**
 * The NATS input over a stream pre-filled with the lane (each run its own consumer, reading from the
 * start), when Debian's `nats-server` is installed; no results otherwise.
 */
async function natsInputRates(lines: readonly string[], flags: readonly string[]): Promise<ModeResult[]> {
  if (spawnSync('nats-server', ['--version']).status !== 0) return [];
  const server = await startNatsServer();
  try {
    const nc = await connect({ servers: server.url });
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: 'svc-bench', subjects: ['bench'] });
    const js = jetstream(nc);
    for (let i = 0; i < NATS_MESSAGES; i += 1000) {
      await Promise.all(Array.from({ length: 1000 }, (_, k) => js.publish('bench', lines[(i + k) % lines.length] ?? '')));
    }
    await nc.close();
    const out: ModeResult[] = [];
    for (let r = 0; r < RUNS; r++) out.push(await runMode([...flags, '--input', `${server.url}/bench`, '--consumer-group', `bench-${r}`, '--state-db', '$DIR/state'], []));
    return out;
  } finally {
    await server.stop();
  }
}

const rate = (xs: readonly ModeResult[]): number => Math.round(median(xs.map((x) => x.eventsPerSecond)));
/** A µs figure's median to 0.1 µs (an even count of runs averages the middle two: no float noise in the rows). */
const micros = (xs: readonly ModeResult[], pick: (x: ModeResult) => number): number => Number(median(xs.map(pick)).toFixed(1));
const cpu = (xs: readonly ModeResult[]): number => micros(xs, (x) => x.cpuMicrosPerEvent);
const main = (xs: readonly ModeResult[]): number => micros(xs, (x) => x.mainMicrosPerEvent);
/** Throughput of `a` over `b`: the ratio of the medians, and the median of the per-round ratios (runs interleaved). */
function throughputRatio(a: readonly ModeResult[], b: readonly ModeResult[]): { readonly ofMedians: number; readonly perRound: readonly number[] } {
  const perRound = a.map((x, i) => Number((x.eventsPerSecond / (b[i]?.eventsPerSecond ?? Number.NaN)).toFixed(2)));
  return { ofMedians: Number((rate(a) / rate(b)).toFixed(2)), perRound };
}

/**
 * CPU per event of `b` over `a`: the throughput ratio `a / b` where CPU bounds throughput (2 cores, the
 * posters on them too), steadier than throughput on a shared machine.
 */
function cpuRatioRow(name: string, ndjson: readonly ModeResult[], otlp: readonly ModeResult[]): BenchRow {
  const perRound = otlp.map((x, i) => ((ndjson[i]?.cpuMicrosPerEvent ?? Number.NaN) / x.cpuMicrosPerEvent).toFixed(2));
  return { name, value: Number((cpu(ndjson) / cpu(otlp)).toFixed(2)), unit: `x (rounds ${perRound.join('/')})` };
}

/** The OTLP/HTTP rows against NDJSON ingest of the same lane, memory state (`label` names a baseline build). */
function otlpRows(memory: readonly ModeResult[], otlp: readonly ModeResult[], otlpJson: readonly ModeResult[], label = ''): BenchRow[] {
  const protobufRatio = throughputRatio(otlp, memory);
  const jsonRatio = throughputRatio(otlpJson, memory);
  return [
    ...(label === '' ? [] : [{ name: `${label}daemon over HTTP NDJSON, memory state`, value: rate(memory), unit: 'events/s' }, { name: `${label}daemon CPU per event, HTTP NDJSON`, value: cpu(memory), unit: 'µs' }, { name: '  of which the main thread', value: main(memory), unit: 'µs' }]),
    { name: `${label}memory state, OTLP/HTTP protobuf input (POST /v1/logs, ${BATCH_LINES} records per export)`, value: rate(otlp), unit: 'events/s' },
    { name: `${label}daemon CPU per event, OTLP/HTTP protobuf`, value: cpu(otlp), unit: 'µs' },
    { name: '  of which the main thread', value: main(otlp), unit: 'µs' },
    { name: `${label}OTLP/HTTP protobuf input / HTTP NDJSON input throughput (both memory state)`, value: protobufRatio.ofMedians, unit: `x (target >= 0.8; rounds ${protobufRatio.perRound.join('/')})` },
    cpuRatioRow(`${label}HTTP NDJSON / OTLP/HTTP protobuf daemon CPU per event`, memory, otlp),
    ...(otlpJson.length === 0
      ? []
      : [
          { name: `${label}memory state, OTLP/HTTP JSON input (POST /v1/logs, ${BATCH_LINES} records per export)`, value: rate(otlpJson), unit: 'events/s' },
          { name: `${label}daemon CPU per event, OTLP/HTTP JSON`, value: cpu(otlpJson), unit: 'µs' },
          { name: '  of which the main thread', value: main(otlpJson), unit: 'µs' },
          { name: `${label}OTLP/HTTP JSON input / HTTP NDJSON input throughput (both memory state)`, value: jsonRatio.ofMedians, unit: `x (rounds ${jsonRatio.perRound.join('/')})` },
          cpuRatioRow(`${label}HTTP NDJSON / OTLP/HTTP JSON daemon CPU per event`, memory, otlpJson),
        ]),
  ];
}

/** The decoders of a build: this one's, or a baseline's `dist/protocol/index.js`. */
interface Decoders {
  readonly decodeProtobufLogs: (body: Uint8Array) => unknown;
  readonly decodeJsonLogs: (body: Uint8Array) => unknown;
}

/** CPU µs per record of one pass of `decode` over `bodies`, repeated for about `ms` (process CPU: steady on a shared machine). */
function decodeRound(decode: (body: Uint8Array) => unknown, bodies: readonly Uint8Array[], records: number, ms: number): number {
  let passes = 0;
  const c0 = process.cpuUsage();
  for (const until = performance.now() + ms; performance.now() < until; passes++) for (const b of bodies) decode(b);
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / (passes * records);
}

/**
 * The main thread's decoding of the bench's exports, measured in this process, and a baseline build's in
 * turn: 10 rounds of 0.5 s, the builds alternating round by round (so a change of load hits both), medians.
 */
async function decodeRows(exports: ReturnType<typeof otlpBodies>, baseline: string | undefined): Promise<BenchRow[]> {
  const json = exports.json.map((b) => Buffer.from(b));
  const records = exports.protobuf.length * BATCH_LINES;
  const builds: [string, Decoders][] = [['', { decodeProtobufLogs, decodeJsonLogs }]];
  if (baseline !== undefined) builds.push(['baseline: ', (await import(pathToFileURL(join(resolve(baseline), 'dist/protocol/index.js')).href)) as Decoders]);
  const rounds = builds.map(() => ({ protobuf: [] as number[], json: [] as number[] }));
  for (let r = 0; r < 10; r++) {
    for (const [i, [, d]] of builds.entries()) {
      rounds[i]?.protobuf.push(decodeRound(d.decodeProtobufLogs, exports.protobuf, records, 500));
      rounds[i]?.json.push(decodeRound(d.decodeJsonLogs, json, records, 500));
    }
  }
  const rows = builds.flatMap(([label], i) => [
    { name: `${label}decoding an OTLP protobuf export on the main thread, per record`, value: Number(median(rounds[i]?.protobuf ?? []).toFixed(2)), unit: 'µs' },
    { name: `${label}decoding an OTLP/JSON export on the main thread, per record`, value: Number(median(rounds[i]?.json ?? []).toFixed(2)), unit: 'µs' },
  ]);
  const ratio = (pick: 'protobuf' | 'json'): number => Number((median(rounds[0]?.[pick] ?? []) / median(rounds[1]?.[pick] ?? [])).toFixed(2));
  if (baseline !== undefined) rows.push({ name: 'decoding per record, this build / baseline: protobuf', value: ratio('protobuf'), unit: 'x' }, { name: 'decoding per record, this build / baseline: OTLP/JSON', value: ratio('json'), unit: 'x' });
  return rows;
}

/**
 * `SIGMAD_BENCH_ONLY=otlp`: NDJSON and OTLP/HTTP ingest only, interleaved, and the same rows of a
 * baseline build (`baseline`: a built checkout) interleaved with them.
 */
export async function runOtlpIngestBench(baseline = process.env['SIGMAD_BENCH_BASELINE']): Promise<BenchRow[]> {
  const lane = processCreationLane(20_000);
  // Like with like: every poster sends bytes encoded once, up front (OTLP bodies are pre-encoded too).
  const bodies = postBodies(lane.lines).map((b) => Buffer.from(b));
  const exports = otlpBodies(lane.lines);
  checkSameEvents(exports, bodies);
  const common = [...DAEMON_BASE_FLAGS, ...process.argv.slice(2)];
  const runs = { memory: [] as ModeResult[], otlp: [] as ModeResult[], otlpJson: [] as ModeResult[], baseMemory: [] as ModeResult[], baseOtlp: [] as ModeResult[], baseOtlpJson: [] as ModeResult[] };
  const baseMain = baseline === undefined ? undefined : cliOf(resolve(baseline));
  for (let r = 0; r < RUNS; r++) {
    runs.otlp.push(await runMode(common, exports.protobuf, [], undefined, OTLP_PROTOBUF_INGEST));
    runs.memory.push(await runMode(common, bodies));
    runs.otlpJson.push(await runMode(common, exports.json, [], undefined, OTLP_JSON_INGEST));
    if (baseMain === undefined) continue;
    runs.baseOtlp.push(await runMode(common, exports.protobuf, [], undefined, OTLP_PROTOBUF_INGEST, undefined, baseMain));
    runs.baseMemory.push(await runMode(common, bodies, [], undefined, NDJSON_INGEST, undefined, baseMain));
    runs.baseOtlpJson.push(await runMode(common, exports.json, [], undefined, OTLP_JSON_INGEST, undefined, baseMain));
  }
  return [
    { name: `daemon over HTTP NDJSON, ${POSTERS} posters × ${BATCH_LINES}-line batches, memory state`, value: rate(runs.memory), unit: 'events/s' },
    { name: 'daemon CPU per event, HTTP NDJSON', value: cpu(runs.memory), unit: 'µs' },
    { name: '  of which the main thread', value: main(runs.memory), unit: 'µs' },
    ...otlpRows(runs.memory, runs.otlp, runs.otlpJson),
    ...(await decodeRows(exports, baseline)),
    ...(baseMain === undefined
      ? []
      : [
          ...otlpRows(runs.baseMemory, runs.baseOtlp, runs.baseOtlpJson, 'baseline: '),
          { name: 'OTLP/HTTP protobuf throughput, this build / baseline', value: throughputRatio(runs.otlp, runs.baseOtlp).ofMedians, unit: 'x' },
          { name: 'OTLP/HTTP JSON throughput, this build / baseline', value: throughputRatio(runs.otlpJson, runs.baseOtlpJson).ofMedians, unit: 'x' },
        ]),
  ];
}

/**
 * How busy each thread was (cores per wall second, medians), so the bound is visible: a thread near 1
 * bounds throughput; two cores kept busy sum to ≈ 2 with the client's share.
 */
function utilisationRows(label: string, xs: readonly ModeResult[]): BenchRow[] {
  const med = (pick: (u: ModeResult['utilisation']) => number): number => Number(median(xs.map((x) => pick(x.utilisation))).toFixed(2));
  const workers = Math.max(0, ...xs.map((x) => x.utilisation.workers.length));
  return [
    { name: `${label}: cores busy, daemon main thread`, value: med((u) => u.main), unit: 'cores' },
    ...Array.from({ length: workers }, (_, i) => ({ name: `${label}: cores busy, detection worker ${String(i + 1)} (busiest first)`, value: med((u) => u.workers[i] ?? 0), unit: 'cores' })),
    { name: `${label}: cores busy, daemon other threads`, value: med((u) => u.other), unit: 'cores' },
    { name: `${label}: cores busy, posters (bench client)`, value: med((u) => u.client), unit: 'cores' },
    { name: `${label}: cores busy, daemon + posters`, value: med((u) => u.main + u.workers.reduce((a, b) => a + b, 0) + u.other + u.client), unit: 'cores (of 2 on the reference machine)' },
  ];
}

/**
 * The `--state-db` rows of a baseline build (`SIGMAD_BENCH_BASELINE`: a built checkout) against this
 * build's, run interleaved with them: where a change moved the daemon's CPU per event, by thread.
 */
function baselineRows(lmdb: readonly ModeResult[], base: readonly ModeResult[]): BenchRow[] {
  if (base.length === 0) return [];
  const ratio = (pick: (x: ModeResult) => number): number => Number((micros(lmdb, pick) / micros(base, pick)).toFixed(2));
  return [
    { name: 'baseline build, --state-db (interleaved)', value: rate(base), unit: 'events/s' },
    { name: 'baseline daemon CPU per event, --state-db', value: cpu(base), unit: 'µs' },
    { name: '  of which the main thread', value: main(base), unit: 'µs' },
    { name: '  of which the detection workers', value: micros(base, (x) => x.workersMicrosPerEvent), unit: 'µs' },
    { name: 'this build / baseline: --state-db CPU per event', value: ratio((x) => x.cpuMicrosPerEvent), unit: 'x' },
    { name: '  main thread', value: ratio((x) => x.mainMicrosPerEvent), unit: 'x' },
    { name: '  detection workers', value: ratio((x) => x.workersMicrosPerEvent), unit: 'x' },
    { name: 'this build / baseline: --state-db throughput', value: Number((rate(lmdb) / rate(base)).toFixed(2)), unit: 'x' },
  ];
}

/** One pass of the single-thread engine over the lane in this process: events/s and CPU µs per event. */
interface EnginePass {
  readonly rate: number;
  readonly cpuMicrosPerEvent: number;
}

/**
 * The single-thread engine over the lane in this process, the §4 reference. It is warmed with as many events
 * as a daemon is before it is measured (WARMUP_EVENTS: the engine's caches, item memos, dense rows and optimised
 * code keep gaining for tens of thousands of events, so a reference warmed on a few thousand was slower than the
 * daemon's workers it was compared with), then measured one pass at the start of each round of daemon runs,
 * so that each ratio compares two figures of the same minutes of a machine whose speed drifts.
 */
async function engineReference(lines: readonly string[]): Promise<() => EnginePass> {
  const single = (await loadCorpus([builtin('sysmon')])).ruleSet;
  for (let warmed = 0; warmed < WARMUP_EVENTS; warmed += lines.length) engineRate(single, lines);
  return () => {
    const cpu0 = process.cpuUsage();
    const { rate } = engineRate(single, lines);
    const cpu1 = process.cpuUsage(cpu0);
    return { rate, cpuMicrosPerEvent: (cpu1.user + cpu1.system) / lines.length };
  };
}

/** The engine's rows: its passes' medians (`lane`: the lane's name, for the row names). */
function engineRows(lane: string, passes: readonly EnginePass[]): BenchRow[] {
  return [
    { name: `${lane}: single-thread engine in process (parse + evaluate), one pass opening each round`, value: Math.round(median(passes.map((p) => p.rate))), unit: `events/s (passes ${passes.map((p) => Math.round(p.rate)).join('/')})` },
    // CPU per event is the steadier comparison on a machine others load: wall-clock rates move with the load.
    { name: `${lane}: engine CPU per event`, value: Number(median(passes.map((p) => p.cpuMicrosPerEvent)).toFixed(1)), unit: 'µs' },
  ];
}

/** A daemon's §4 ratios against the engine pass of each of its rounds: medians of the per-round ratios. */
function againstEngine(passes: readonly EnginePass[], runs: readonly ModeResult[]): { readonly throughput: number; readonly cpu: number } {
  const perRound = (pick: (run: ModeResult, pass: EnginePass) => number): number => Number(median(runs.map((run, i) => pick(run, passes[i] as EnginePass))).toFixed(2));
  return {
    throughput: perRound((run, pass) => run.eventsPerSecond / pass.rate),
    cpu: perRound((run, pass) => run.cpuMicrosPerEvent / pass.cpuMicrosPerEvent),
  };
}

/**
 * `SIGMAD_BENCH_ONLY=lmdb`: the §4 figures alone, quickly: rounds of an engine pass and a `--state-db` run
 * (and a baseline build's when `SIGMAD_BENCH_BASELINE` names one), with each thread's load.
 */
export async function runLmdbBench(baseline = process.env['SIGMAD_BENCH_BASELINE']): Promise<BenchRow[]> {
  const lane = processCreationLane(20_000);
  const bodies = postBodies(lane.lines);
  const flags = [...DAEMON_BASE_FLAGS, ...process.argv.slice(2), '--state-db', '$DIR/state'];
  // The baseline's bundle, as this build's runs use theirs (its tsc output loads 1,300 modules more).
  const baseMain = baseline === undefined ? undefined : cliOf(resolve(baseline));
  const lmdb: ModeResult[] = [];
  const baseLmdb: ModeResult[] = [];
  const engine = await engineReference(lane.lines);
  const passes: EnginePass[] = [];
  for (let r = 0; r < RUNS; r++) {
    passes.push(engine());
    lmdb.push(await runMode(flags, bodies));
    if (baseMain !== undefined) baseLmdb.push(await runMode(flags, bodies, [], undefined, NDJSON_INGEST, undefined, baseMain));
  }
  const against = (label: string, xs: readonly ModeResult[]): BenchRow[] => {
    const vs = againstEngine(passes, xs);
    return [
      { name: `${label}: --state-db, ${String(POSTERS)} posters × ${String(BATCH_LINES)}-line batches`, value: rate(xs), unit: `events/s (runs ${xs.map((x) => x.eventsPerSecond).join('/')})` },
      { name: `${label}: --state-db throughput / single-thread engine`, value: vs.throughput, unit: 'x (target >= 1.5; median of the rounds)' },
      { name: `${label}: --state-db CPU per event / engine CPU per event`, value: vs.cpu, unit: 'x (target <= 1.3; median of the rounds)' },
      ...utilisationRows(label, xs),
    ];
  };
  return [
    ...engineRows(lane.name, passes),
    ...against('this build', lmdb),
    ...(baseMain === undefined ? [] : [...against('baseline', baseLmdb), ...baselineRows(lmdb, baseLmdb)]),
  ];
}

/**
 * The structured lane (Sysmon process creation), alternating memory and LMDB runs; medians. With
 * `SIGMAD_BENCH_BASELINE=<checkout>` (built), that build's `--state-db` run follows each of this build's.
 */
export async function runDaemonBench(baseline = process.env['SIGMAD_BENCH_BASELINE']): Promise<BenchRow[]> {
  const lane = processCreationLane(20_000);
  const bodies = postBodies(lane.lines);
  const base = DAEMON_BASE_FLAGS;
  // Extra daemon flags from the command line (`node dist/scripts/bench/daemon.js --detect-workers 2`).
  const common = [...base, ...process.argv.slice(2)];
  const memory: ModeResult[] = [];
  const lmdb: ModeResult[] = [];
  const inline: ModeResult[] = [];
  const baseLmdb: ModeResult[] = [];
  const baseMain = baseline === undefined ? undefined : cliOf(resolve(baseline));
  const otlp: ModeResult[] = [];
  const otlpJson: ModeResult[] = [];
  const exports = otlpBodies(lane.lines);
  const engine = await engineReference(lane.lines);
  const passes: EnginePass[] = [];
  for (let r = 0; r < RUNS; r++) {
    passes.push(engine());
    otlp.push(await runMode(common, exports.protobuf, [], undefined, OTLP_PROTOBUF_INGEST));
    otlpJson.push(await runMode(common, exports.json, [], undefined, OTLP_JSON_INGEST));
    memory.push(await runMode(common, bodies));
    lmdb.push(await runMode([...common, '--state-db', '$DIR/state'], bodies));
    if (baseMain !== undefined) baseLmdb.push(await runMode([...common, '--state-db', '$DIR/state'], bodies, [], undefined, NDJSON_INGEST, undefined, baseMain));
    inline.push(await runMode([...base, '--detect-workers', '0'], bodies));
  }
  const nats = await natsInputRates(lane.lines, common);
  const vs = againstEngine(passes, lmdb);
  const memoryVs = againstEngine(passes, memory);
  return [
    ...engineRows(lane.name, passes),
    { name: `daemon over HTTP, ${POSTERS} posters × ${BATCH_LINES}-line batches, memory state`, value: rate(memory), unit: 'events/s' },
    { name: 'daemon CPU per event, memory state', value: cpu(memory), unit: 'µs' },
    { name: '  of which the main thread', value: main(memory), unit: 'µs' },
    { name: 'same with --state-db (LMDB journal + outbox)', value: rate(lmdb), unit: 'events/s' },
    { name: 'daemon CPU per event, --state-db', value: cpu(lmdb), unit: 'µs' },
    { name: '  of which the main thread', value: main(lmdb), unit: 'µs' },
    { name: '  of which the detection workers', value: micros(lmdb, (x) => x.workersMicrosPerEvent), unit: 'µs' },
    { name: '  of which other threads (V8 GC and compiler helpers, libuv, LMDB writer)', value: micros(lmdb, (x) => x.otherMicrosPerEvent), unit: 'µs' },
    { name: '--state-db CPU overhead (LMDB / memory CPU per event)', value: Number((cpu(lmdb) / cpu(memory)).toFixed(2)), unit: 'x' },
    { name: '--state-db throughput / single-thread engine', value: vs.throughput, unit: 'x (target >= 1.5; median of the rounds)' },
    { name: '--state-db daemon CPU per event / engine CPU per event', value: vs.cpu, unit: 'x (target <= 1.3; median of the rounds)' },
    ...utilisationRows('--state-db', lmdb),
    { name: 'memory-state daemon CPU per event / engine CPU per event', value: memoryVs.cpu, unit: 'x (median of the rounds)' },
    { name: 'memory state, detection inline on the main thread (--detect-workers 0)', value: rate(inline), unit: 'events/s' },
    { name: 'daemon CPU per event, inline', value: cpu(inline), unit: 'µs' },
    ...(nats.length === 0
      ? []
      : [
          { name: 'NATS JetStream input (pre-filled stream, exactly once), --state-db', value: rate(nats), unit: 'events/s' },
          { name: 'daemon CPU per event, NATS input, --state-db', value: cpu(nats), unit: 'µs' },
          { name: 'NATS input / HTTP NDJSON ingest throughput (both --state-db)', value: Number((rate(nats) / rate(lmdb)).toFixed(2)), unit: 'x' },
        ]),
    ...otlpRows(memory, otlp, otlpJson),
    ...baselineRows(lmdb, baseLmdb),
  ];
}

if (isMain(import.meta.url) && process.env['SIGMAD_BENCH_ONLY'] === 'lmdb') {
  printRows('Daemon with --state-db against the single-thread engine (issue 19 §4; full corpus + sysmon pipeline)', await runLmdbBench());
} else if (isMain(import.meta.url) && process.env['SIGMAD_BENCH_ONLY'] === 'otlp') {
  printRows('Daemon ingest: HTTP NDJSON and OTLP/HTTP (full corpus + sysmon pipeline, memory state, interleaved runs)', await runOtlpIngestBench());
} else if (isMain(import.meta.url)) {
  printRows('Daemon (full corpus + sysmon pipeline, throughput from svc_events_processed_total)', await runDaemonBench());
  const { PROFILE_TITLE, runDaemonProfile } = await import('./daemon-profile.js');
  printRows(PROFILE_TITLE, await runDaemonProfile());
}
