// Where the daemon's time goes (issue 19 §4): one `--state-db` run of the daemon bench under node's
// `--cpu-prof` (a profile per thread), its samples of the measured span sorted into stages by the module
// that was running (or, for node's own code, the nearest caller that names a stage), as shares of the
// main thread's and of the detection workers' busy time, and in µs per event of the run's CPU per thread.
// Run after `npm run build`: `node dist/scripts/bench/daemon-profile.js`.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isMain, printRows, type BenchRow } from './bench-row.js';
import { cliOf, DAEMON_BASE_FLAGS, MAIN, postBodies, runMode } from './daemon.js';
import { processCreationLane } from './lanes.js';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  readonly children?: readonly number[];
}
interface Profile {
  readonly startTime: number;
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/** Stages in the order they are tested: the first whose pattern matches a frame's module names it. */
const STAGES: readonly (readonly [string, RegExp])[] = [
  ['gc', /^\(garbage collector\)$/],
  ['idle', /^\((idle|program)\)$/],
  // Before receive: the ingest splitter lives under http/.
  ['split (lines, units, queue)', /line-splitter|ingest-lines|unit-chunks|input-unit|input-queue/],
  ['receive (HTTP, ingest source)', /\/(http|sources)\/|node:_http|node:http|uws|uWebSockets/],
  // Packing a batch's line bytes is part of moving them; making their strings is decoding.
  ['transfer (worker messages)', /worker-pool|detect-worker|node:internal\/worker|postMessage|^pack$/],
  // Making the lines' strings from their bytes, apart from parsing them (which the engine bench also does).
  ['decode: bytes → line strings', /\/protocol\/decode\/byte-lines/],
  ['decode: JSON.parse, event shape', /\/protocol\/decode\//],
  // Result texts, their UTF-8 bytes on the worker (packed-texts) and their ids on main.
  ['results (texts, ids)', /event-results|detection-text|packed-texts|result-id|DetectionLine/],
  // Each batch's result texts to UTF-8, once for the outbox and the line sinks.
  ['result bytes (UTF-8, once)', /outbox-lines/],
  ['detect (engine)', /\/sigma\//],
  // The per-batch loop around the engine: line by line, its arrays and the batch's answer.
  ['batch loop (detect-batch)', /detect-batch/],
  ['correlate', /\/actors\/correlation\/|correlation-state/],
  ['commit (journal, outbox, LMDB)', /\/state\/|lmdb|msgpackr/],
  ['sinks, tail, batch steps', /\/sinks\/|tail-fanout|batch-processor|event-pipeline/],
  ['metrics, logs', /prom-client|pino|metrics/],
];

/**
 * The module a frame of the bundle runs in: rolldown heads each module's code with a `// dist/<path>.js`
 * (or `// node_modules/...`) comment, so a frame's module is the last such comment at or above its line.
 * Frames outside a bundle file keep their URL.
 */
class BundleModules {
  private readonly heads = new Map<string, readonly (readonly [number, string])[]>();

  of(frame: ProfileNode['callFrame']): string {
    if (!frame.url.startsWith('file:') || !frame.url.includes('/dist/bin/')) return frame.url;
    let heads = this.heads.get(frame.url);
    if (heads === undefined) {
      heads = readFileSync(fileURLToPath(frame.url), 'utf8')
        .split('\n')
        .flatMap((line, i) => (/^\/\/ ((dist|node_modules)\/\S+)$/.test(line) ? [[i, `/${line.slice(3)}`] as const] : []));
      this.heads.set(frame.url, heads);
    }
    let module = frame.url;
    for (const [line, name] of heads) {
      if (line > frame.lineNumber) break;
      module = name;
    }
    return module;
  }
}

const modules = new BundleModules();

function frameStage(frame: ProfileNode['callFrame']): string | undefined {
  const module = modules.of(frame);
  for (const [name, pattern] of STAGES) if (pattern.test(module) || pattern.test(frame.functionName)) return name;
  return undefined;
}

/**
 * Each node's stage: that of the nearest frame, from the sampled one up its callers, that names one. Node's
 * own code (a `Buffer.from`, `TextDecoder.decode`, a native `postMessage`) counts for the stage that called it.
 */
function nodeStages(profile: Profile): Map<number, string> {
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const out = new Map<number, string>();
  const stageOf = (id: number): string => {
    const known = out.get(id);
    if (known !== undefined) return known;
    const node = byId.get(id);
    const up = parent.get(id);
    const frame = node === undefined ? undefined : frameStage(node.callFrame);
    // A chain that names no stage up to the root (node's own timers and callbacks) is `other`.
    const stage = frame ?? (up !== undefined ? stageOf(up) : 'other');
    out.set(id, stage);
    return stage;
  };
  for (const n of profile.nodes) stageOf(n.id);
  return out;
}

/** Sampled µs per stage of one profile, counting only samples taken inside `span` (start-up left out). */
function stageTimes(profile: Profile, span: { readonly fromUs: number; readonly toUs: number }): Map<string, number> {
  const stage = nodeStages(profile);
  const out = new Map<string, number>();
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    if (at < span.fromUs || at > span.toUs) return;
    const s = stage.get(id) ?? 'other';
    out.set(s, (out.get(s) ?? 0) + delta);
  });
  return out;
}

/**
 * How busy the threads were over the span, then each stage's share of that busy time and what that share
 * is of the threads' measured CPU per event (`micros`).
 */
function busyOf(times: ReadonlyMap<string, number>): number {
  let total = 0;
  for (const [s, v] of times) if (s !== 'idle') total += v;
  return total;
}

function shares(prefix: string, times: Map<string, number>, spanUs: number, threads: number, micros: number): BenchRow[] {
  const total = busyOf(times);
  const busy = { name: `${prefix}: busy`, value: Number(((100 * total) / (spanUs * threads)).toFixed(1)), unit: '% of the span per thread' };
  return [busy, ...[...times]
    .filter(([s]) => s !== 'idle')
    .sort((a, b) => b[1] - a[1])
    .map(([s, v]) => ({ name: `${prefix}: ${s}`, value: Number(((100 * v) / total).toFixed(1)), unit: `% of busy samples (${((micros * v) / total).toFixed(2)} µs per event)` }))];
}

/** One profiled run of the daemon at `entry` (this build's bundle unless a baseline's), rows prefixed with `label`. */
async function profileRows(label: string, entry: string): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'sigmad-profile-'));
  try {
    const lane = processCreationLane(20_000);
    const result = await runMode([...DAEMON_BASE_FLAGS, '--state-db', '$DIR/state'], postBodies(lane.lines), ['--cpu-prof', '--cpu-prof-dir', dir], undefined, undefined, undefined, entry);
    // Profile names end in `.<pid>.<thread id>.<seq>.cpuprofile`; thread 0 is the main thread.
    const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
    const span = result.measured.toUs - result.measured.fromUs;
    const main = new Map<string, number>();
    const workers = new Map<string, number>();
    let workerThreads = 0;
    for (const f of files) {
      const thread = Number(f.split('.').at(-3));
      const times = stageTimes(JSON.parse(readFileSync(join(dir, f), 'utf8')) as Profile, result.measured);
      // A thread that did nothing in the span (the cold compile's worker, gone by then) is no detection worker.
      if (thread !== 0 && busyOf(times) < span / 100) continue;
      if (thread !== 0) workerThreads++;
      const into = thread === 0 ? main : workers;
      for (const [s, v] of times) into.set(s, (into.get(s) ?? 0) + v);
    }
    return [
      { name: `${label}profiled run (--state-db)`, value: result.eventsPerSecond, unit: 'events/s' },
      { name: `${label}profiled run: CPU per event, main thread`, value: result.mainMicrosPerEvent, unit: 'µs' },
      { name: `${label}profiled run: CPU per event, detection workers`, value: result.workersMicrosPerEvent, unit: 'µs' },
      ...shares(`${label}main thread`, main, span, 1, result.mainMicrosPerEvent),
      ...shares(`${label}detection workers (${String(workerThreads)})`, workers, span, workerThreads, result.workersMicrosPerEvent),
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** This build's profile, then (with `SIGMAD_BENCH_BASELINE=<built checkout>`) the baseline bundle's, classified alike. */
export async function runDaemonProfile(baseline = process.env['SIGMAD_BENCH_BASELINE']): Promise<BenchRow[]> {
  const rows = await profileRows('', MAIN);
  return baseline === undefined ? rows : [...rows, ...(await profileRows('baseline: ', cliOf(resolve(baseline))))];
}

export const PROFILE_TITLE = 'Where daemon time goes (CPU profile of one --state-db run, measured span only)';

if (isMain(import.meta.url)) printRows(PROFILE_TITLE, await runDaemonProfile());
