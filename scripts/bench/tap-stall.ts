// Issue 16: a tap or tail session whose client reads nothing must not change the daemon's throughput
// (`npm run bench:tap`). The daemon bench's structured lane against one daemon per round with the tap
// and the tail enabled, its windows interleaved in that daemon so they share its warm JIT, its workers
// and the machine's load of the moment: no session; 4 stalled tap sessions while their buffers fill
// (the first FILL_EVENTS events after they open), then once they are full; no session; 4 stalled tail
// sessions; no session. Each stalled window is compared with the mean of the no-session windows around
// it (CPU per event is the steadier figure on a loaded machine); medians of the rounds and their spread.
// `SIGMAD_BENCH_BASELINE=<checkout>` (built) runs the same rounds against its daemon, interleaved.
// First, in process and steadier on a loaded machine: the CPU per event of building every line for 4
// sessions that read (what the filling phase builds), this build's tap and the baseline's interleaved.
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import pino from 'pino';
import { Registry } from 'prom-client';
import type { JsonEvent, LazyLines, LiveSink, TapRequest } from '../../protocol/index.js';
import { isMain, median, printRows } from './bench-row.js';
import type { BenchRow } from './bench-row.js';
import { cliOf, cpuSeconds, DAEMON_BASE_FLAGS, MAIN, POLL_MS, post, postBodies, processed, ROOT, startDaemon, startPosters, untilProcessed, warmUp } from './daemon.js';
import { processCreationLane } from './lanes.js';

const STALLED = 4;
const ROUNDS = Number(process.env['SIGMAD_BENCH_RUNS'] ?? 3);
/** A window of steady state: long enough that the 20 ms polling and a GC pause are noise. */
const WINDOW_MS = 3_000;
/**
 * The filling phase: a session's buffer (daemon.tap.buffer_events, 8,192 lines) and its socket's
 * buffers (a few hundred lines of this lane since the daemon sizes them, http/send-buffer.ts) fill within it.
 */
const FILL_EVENTS = 16_000;

interface Window {
  readonly eventsPerSecond: number;
  readonly cpuMicrosPerEvent: number;
}

/**
 * One measured window: until `events` more events are processed, or for WINDOW_MS. A timed window polls the
 * daemon's counter as often as `untilProcessed` does: each poll is a /metrics scrape (thousands of per-rule
 * series), and when only the filling window polled, its CPU per event carried them.
 */
async function measure(port: number, pid: number, events?: number): Promise<Window> {
  const before = await processed(port);
  const cpu0 = cpuSeconds(pid);
  const t0 = performance.now();
  if (events !== undefined) await untilProcessed(port, before + events);
  else
    while (performance.now() - t0 < WINDOW_MS) {
      await processed(port);
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  const seconds = (performance.now() - t0) / 1000;
  const done = (await processed(port)) - before;
  return { eventsPerSecond: done / seconds, cpuMicrosPerEvent: ((cpuSeconds(pid) - cpu0) * 1e6) / done };
}

async function gauge(port: number, name: string): Promise<number> {
  return Number(new RegExp(`^${name} (\\d+)`, 'm').exec(await post(port, '/metrics', ''))?.[1] ?? Number.NaN);
}

async function untilGauge(port: number, name: string, value: number): Promise<void> {
  while ((await gauge(port, name)) !== value) await new Promise((r) => setTimeout(r, 20));
}

/** Sessions whose sockets are never read; resolves once the daemon has them all, its result closes them and waits until the daemon has let them go. */
async function stalledSessions(port: number, paths: readonly string[], activeGauge: string): Promise<() => Promise<void>> {
  const sockets: Socket[] = paths.map((path) => {
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => undefined);
    socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    socket.pause();
    return socket;
  });
  await untilGauge(port, activeGauge, paths.length);
  return async () => {
    for (const s of sockets) s.destroy();
    await untilGauge(port, activeGauge, 0);
  };
}

/** Tap sessions as a user would open them: two `decoded` redacting two paths, two `raw` redacting one. */
const TAP_PATHS = Array.from({ length: STALLED }, (_, i) => `/api/v1/tap?duration=5m&${i % 2 === 0 ? 'stage=decoded&redact=User,CommandLine' : 'stage=raw&redact=User'}`);
const TAIL_PATHS = Array.from({ length: STALLED }, () => '/api/v1/detections/stream');

interface Round {
  readonly none: Window[];
  readonly tapFilling: Window;
  readonly tapFull: Window;
  readonly tail: Window;
  readonly detectionsPerEvent: number;
  /** Tap lines built per stalled session from its opening to the end of the full window: what its client's sockets took. */
  readonly tapLinesBuilt: number;
}

/** One daemon, its windows in the order the header describes. */
async function runRound(bodies: readonly string[], entry: string): Promise<Round> {
  const daemon = await startDaemon([...DAEMON_BASE_FLAGS, '--enable-tap', '--enable-tail'], [], entry);
  const { port, pid } = daemon;
  const stopPosters = startPosters(port, bodies);
  try {
    await daemon.handedOver;
    await warmUp(port);
    const detections0 = await gauge(port, 'svc_detection_matches_total');
    const events0 = await processed(port);
    const none = [await measure(port, pid)];
    const streamed0 = await gauge(port, 'svc_tap_events_streamed_total');
    let close = await stalledSessions(port, TAP_PATHS, 'svc_tap_active_sessions');
    const tapFilling = await measure(port, pid, FILL_EVENTS);
    const tapFull = await measure(port, pid);
    const tapLinesBuilt = ((await gauge(port, 'svc_tap_events_streamed_total')) - streamed0) / STALLED;
    await close();
    none.push(await measure(port, pid));
    close = await stalledSessions(port, TAIL_PATHS, 'svc_tail_active_sessions');
    const tail = await measure(port, pid);
    await close();
    none.push(await measure(port, pid));
    const detectionsPerEvent = ((await gauge(port, 'svc_detection_matches_total')) - detections0) / ((await processed(port)) - events0);
    return { none, tapFilling, tapFull, tail, detectionsPerEvent, tapLinesBuilt };
  } finally {
    await stopPosters();
    await daemon.stop();
  }
}

/** What the in-process pass needs of a build, imported from its `dist/`. */
interface TapBuild {
  readonly streams: typeof import('../../streams/index.js');
  readonly protocol: typeof import('../../protocol/index.js');
}

async function tapBuild(distRoot: string): Promise<TapBuild> {
  const at = (path: string): string => pathToFileURL(join(distRoot, path)).href;
  return { streams: (await import(at('streams/index.js'))) as TapBuild['streams'], protocol: (await import(at('protocol/index.js'))) as TapBuild['protocol'] };
}

/** CPU µs per line of the tap building every line of `lines` for the bench's 4 sessions, all reading. */
function servePass(build: TapBuild, lines: readonly string[]): number {
  const { streams, protocol } = build;
  const metrics = protocol.createMetrics(new Registry(), { groups: [] });
  const ctx = { log: pino({ level: 'silent' }), metrics: metrics.handles, clock: { now: () => 0, setTimer: () => () => undefined }, signal: new AbortController().signal };
  const event = (d: ReturnType<typeof protocol.decodeLine>): JsonEvent | undefined => (d.ok ? d.event : undefined);
  const tap = streams.createTapFanout({ max_sessions: STALLED, max_duration_ms: 3_600_000, buffer_events: 8_192 }, ctx, {
    decode: (line) => event(protocol.decodeLine(line, 'auto', { now: 0, tzOffsetMinutes: 0 })),
    decodeJson: (value) => event(protocol.decodeEvent(value, 'auto')),
  });
  // A build before the lines were built a piece per write takes the count alone (its `LazyLines` has one parameter).
  const buildAll = (built: LazyLines, count: number): unknown => (built.length === 1 ? (built as unknown as (take: number) => string)(count) : built(0, count, Infinity));
  const reader = (): LiveSink => ({ closed: false, full: false, push: () => true, pushLines: (count: number, built: LazyLines) => (buildAll(built, count), count), end: () => undefined });
  for (const path of TAP_PATHS) {
    const query = new URLSearchParams(path.split('?')[1]);
    const request: TapRequest = { durationMs: 3_600_000, stage: query.get('stage') === 'raw' ? 'raw' : 'decoded', redact: (query.get('redact') ?? '').split(',') };
    tap.open(request, reader());
  }
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < lines.length; i += 500) tap.publish(lines.slice(i, i + 500));
  const cpu = process.cpuUsage(cpu0);
  tap.closeAll();
  return (cpu.user + cpu.system) / lines.length;
}

/** Medians of interleaved passes (the first two of each build warm its JIT up and are left out). */
async function servingRows(lines: readonly string[], baseline: string | undefined): Promise<BenchRow[]> {
  const builds = [await tapBuild(join(ROOT, 'dist')), ...(baseline === undefined ? [] : [await tapBuild(join(resolve(baseline), 'dist'))])];
  const passes = builds.map((): number[] => []);
  for (let pass = 0; pass < 7; pass++) builds.forEach((b, k) => passes[k]?.push(servePass(b, lines)));
  const perLine = passes.map((p) => fixed2(median(p.slice(2))));
  const label = `${STALLED} reading tap sessions as the stalled ones (in process): tap CPU per line`;
  return [
    { name: label, value: perLine[0] as number, unit: 'µs' },
    ...(baseline === undefined ? [] : [{ name: `baseline: ${label}`, value: perLine[1] as number, unit: 'µs' }, { name: `  this build / baseline`, value: fixed2((perLine[0] as number) / (perLine[1] as number)), unit: 'x' }]),
  ];
}

const mean = (a: Window, b: Window): Window => ({ eventsPerSecond: (a.eventsPerSecond + b.eventsPerSecond) / 2, cpuMicrosPerEvent: (a.cpuMicrosPerEvent + b.cpuMicrosPerEvent) / 2 });
const fixed2 = (x: number): number => Number(x.toFixed(2));

/** A stalled window against the no-session windows around it: median throughput and CPU-per-event ratios over the rounds, with each round's. */
function ratioRows(label: string, rounds: readonly Round[], pick: (r: Round) => { readonly stalled: Window; readonly none: Window }): BenchRow[] {
  const pairs = rounds.map(pick);
  const rate = pairs.map((p) => fixed2(p.stalled.eventsPerSecond / p.none.eventsPerSecond));
  const cpu = pairs.map((p) => fixed2(p.stalled.cpuMicrosPerEvent / p.none.cpuMicrosPerEvent));
  return [
    { name: `${label}: throughput / no session`, value: fixed2(median(rate)), unit: `x (rounds ${rate.join('/')})` },
    { name: `${label}: CPU per event / no session`, value: fixed2(median(cpu)), unit: `x (rounds ${cpu.join('/')})` },
  ];
}

function roundRows(prefix: string, rounds: readonly Round[]): BenchRow[] {
  const noneRates = rounds.flatMap((r) => r.none.map((w) => Math.round(w.eventsPerSecond)));
  return [
    { name: `${prefix}daemon over HTTP, tap and tail enabled, no session`, value: Math.round(median(noneRates)), unit: `events/s (windows ${noneRates.join('/')})` },
    ...ratioRows(`${prefix}${STALLED} stalled tap sessions, filling (first ${FILL_EVENTS} events)`, rounds, (r) => ({ stalled: r.tapFilling, none: mean(r.none[0] as Window, r.none[1] as Window) })),
    ...ratioRows(`${prefix}${STALLED} stalled tap sessions, buffers full`, rounds, (r) => ({ stalled: r.tapFull, none: mean(r.none[0] as Window, r.none[1] as Window) })),
    { name: `${prefix}  tap lines built per stalled session (what its sockets took)`, value: median(rounds.map((r) => r.tapLinesBuilt)), unit: `lines (rounds ${rounds.map((r) => r.tapLinesBuilt).join('/')})` },
    ...ratioRows(`${prefix}${STALLED} stalled tail sessions`, rounds, (r) => ({ stalled: r.tail, none: mean(r.none[1] as Window, r.none[2] as Window) })),
    { name: `${prefix}  detections per event (what the tail offers)`, value: fixed2(median(rounds.map((r) => r.detectionsPerEvent))), unit: '' },
  ];
}

export async function runTapStallBench(baseline = process.env['SIGMAD_BENCH_BASELINE']): Promise<BenchRow[]> {
  process.env['SVC_TAP__MAX_SESSIONS'] = String(STALLED);
  process.env['SVC_TAIL__MAX_SESSIONS'] = String(STALLED);
  const lane = processCreationLane(20_000).lines;
  const serving = await servingRows(lane, baseline);
  const bodies = postBodies(lane);
  const baseMain = baseline === undefined ? undefined : cliOf(resolve(baseline));
  const rounds: Round[] = [];
  const baseRounds: Round[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    rounds.push(await runRound(bodies, MAIN));
    if (baseMain !== undefined) baseRounds.push(await runRound(bodies, baseMain));
  }
  return [...serving, ...roundRows('', rounds), ...(baseMain === undefined ? [] : roundRows('baseline: ', baseRounds))];
}

if (isMain(import.meta.url)) {
  printRows(`Event tap and detection tail: ${STALLED} stalled sessions vs none (full corpus + sysmon pipeline, windows interleaved in one daemon per round)`, await runTapStallBench());
}
