// The composition root of `sigmad daemon`: config → rules → state → streams → facade, with sockets,
// signals and the process kept to the command action.
import { readFileSync } from 'node:fs';
import { appendFile, mkdir, open, stat } from 'node:fs/promises';
import { availableParallelism, homedir } from 'node:os';
import { dirname, resolve } from 'node:path';
import type { CAC } from 'cac';
import pino from 'pino';
import type { Logger } from 'pino';
import { Registry } from 'prom-client';
import { createActor } from 'xstate';
import { CorrelationRuntime } from '../actors/correlation/index.js';
import { readinessMachine } from '../actors/readiness/index.js';
import type { DaemonFacade } from '../http/facade.js';
import { createHttpApp, createStartupApp, formatListenAddress, listenHttp, parseListenAddress, ROUTES } from '../http/index.js';
import type { HttpApp } from '../http/index.js';
import type { DaemonConfig } from '../protocol/config.js';
import { createMetrics } from '../protocol/metrics.js';
import type { SigmaError } from '../sigma/errors.js';
import { isBuiltinPipeline } from '../sigma/pipeline/index.js';
import { createKindRegistry, noCrash, openLmdbStateStore, openMemoryStateStore, recover, snapshotKinds } from '../state/index.js';
import type { CrashHook, CrashPoint, Recovered, StateStore } from '../state/index.js';
import {
  BatchProcessor,
  carryOver,
  CORRELATION_KIND,
  createDecoder,
  createDlqWriter,
  createFileSink,
  createHttpSource,
  createStdinSource,
  createStdoutSink,
  createTailFanout,
  definitionsRecord,
  EventPipeline,
  InputQueue,
  createBatchDetector,
  createCorrelationKinds,
  inlineDetector,
  parseSinkUri,
  SinkQueueDepths,
  SinkWorker,
  startWorkerPool,
  systemClock,
} from '../streams/index.js';
import type { ActiveRules, Clock, Detector, DetectSettings, DroppedCorrelationState, JournalBuffer, LineWritable, StageContext } from '../streams/index.js';
import { checkDaemonFlags, ConfigError, DAEMON_FLAGS, discoverConfigFiles, refuseUnavailableSettings, loadDaemonConfig, renderEffectiveConfig, requireRules, settingName } from './config.js';
import { createDaemonFacade } from './daemon-facade.js';
import { createReloadController, watchRuleFiles } from './daemon-reload.js';
import type { ReloadController } from './daemon-reload.js';
import { buildDaemonRules, loadDaemonRules, readDaemonRules, runtimeOptions } from './daemon-rules.js';
import { createSilenceStore } from './daemon-silences.js';
import { replayProgressLogger } from './replay-progress.js';

/** A start-up failure with the exit code the contract gives it (2 rules, 3 config/startup). */
export class DaemonExit extends Error {
  override readonly name = 'DaemonExit';
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

/** What start-up is doing, named in the 503 answers the listener gives meanwhile. */
export type StartupPhase = 'loading rules' | 'replaying state' | 'starting the data path';

export interface DaemonDeps {
  readonly log: Logger;
  /** The metrics registry; the listener bound before the daemon is built serves it already. */
  readonly registry?: Registry;
  /** Told when start-up moves to the next phase. */
  readonly onPhase?: (phase: StartupPhase) => void;
  readonly clock?: Clock;
  readonly crashHook?: CrashHook;
  /** stdin input (`--input stdin`). */
  readonly stdin?: AsyncIterable<string | Uint8Array>;
  /** The stdout sink's stream. */
  readonly stdout?: LineWritable;
  /** Test hook (`SVC_DETECT_CRASH_AT=<n>`): the first detection worker dies on its n-th batch. */
  readonly detectCrashAt?: number;
}

/**
 * `auto` detection workers: one per core (at most AUTO_MAX_WORKERS), none on a single core. The main
 * thread's share is small (about 10 µs of ~47 µs CPU per event), so it needs no core of its own:
 * interleaved bench:daemon runs on the 2-core machine gave 2 workers 38.8k events/s at 46.6 µs CPU
 * per event against 28.7k at 56.9 µs for 1 worker and ~21-26k inline (medians of 4; when the machine
 * was saturated by other work, 1 and 2 workers were within noise of each other).
 */
export function detectWorkerCount(setting: DaemonConfig['engine']['detect_workers'], cores = availableParallelism()): number {
  if (setting !== 'auto') return setting;
  return cores <= 1 ? 0 : Math.min(AUTO_MAX_WORKERS, cores);
}

export interface Daemon {
  readonly facade: DaemonFacade;
  readonly config: DaemonConfig;
  readonly reload: ReloadController;
  /** Resolves when the input is exhausted (stdin EOF) and everything was delivered. */
  readonly inputDone: Promise<void>;
  /** Graceful stop: drain within `--drain-timeout`, flush sinks, snapshot, close the state. */
  stop(): Promise<boolean>;
}

/** How lines are decoded and results built, wherever detection runs. */
function detectSettings(config: DaemonConfig): DetectSettings {
  const routing = config.logsource_routing;
  return {
    format: config.input.format,
    syslogTzMinutes: 0,
    includeEvent: config.output.include_event,
    ...(routing.enabled ? { routing: { fieldMap: routing.field_map, ...(routing.event_logsource !== undefined ? { fixed: routing.event_logsource } : {}) } } : {}),
  };
}

const SNAPSHOT_MS_PER_SECOND = 1000;
/** Journal records replayed between turns of the event loop at start-up (about 10-20 ms of work). */
const REPLAY_SLICE = 10_000;
/** `auto` never starts more workers than this: past it, main's share of each event becomes the limit. */
const AUTO_MAX_WORKERS = 4;

/** Build and start the daemon's data path (no sockets). Throws DaemonExit. */
export async function buildDaemon(config: DaemonConfig, deps: DaemonDeps): Promise<Daemon> {
  const clock = deps.clock ?? systemClock;
  const crash = deps.crashHook ?? noCrash;
  const log = deps.log;
  const startedAt = clock.now();
  const registry = deps.registry ?? new Registry();
  const metrics = createMetrics(registry).handles;
  const abort = new AbortController();
  const ctx: StageContext = { log, metrics, clock, signal: abort.signal };
  const readiness = createActor(readinessMachine, { input: { at: startedAt } }).start();

  const rulesPath = requireRules(config);
  // A rules path that is not there is a bad flag (exit 3); what is wrong inside it fails the rule load.
  await stat(rulesPath).catch((error: unknown) => {
    throw new DaemonExit(`${settingName('rules')} ${rulesPath}: ${error instanceof Error ? error.message : String(error)}`, 3);
  });
  const texts = await readDaemonRules(config, rulesPath);
  // Workers boot and build their rules while main builds its own and recovers the state.
  const workerCount = detectWorkerCount(config.engine.detect_workers);
  const starting = texts.ok && workerCount > 0 ? startWorkerPool(texts.inputs, { workers: workerCount, settings: detectSettings(config), log, ...(deps.detectCrashAt !== undefined ? { crashAtBatch: deps.detectCrashAt } : {}) }) : undefined;
  starting?.catch(() => undefined);
  /** A start-up failure: workers already started are stopped with it. */
  const exit = (message: string, code: number): DaemonExit => {
    void starting?.then((d) => d.close(), () => undefined);
    return new DaemonExit(message, code);
  };
  const loaded = buildDaemonRules(texts);
  if (!loaded.ok) {
    logProblems(log, loaded.problems);
    readiness.send({ type: 'load_failed', at: clock.now(), error: loaded.reason });
    // A pipeline that does not load is a bad flag (exit 3, §2.3); bad rule files fail the rule load (exit 2).
    if (loaded.failure === 'pipeline') throw exit(`${settingName('pipelines')}: ${loaded.reason}`, 3);
    throw exit(`initial rule load failed: ${loaded.reason}`, 2);
  }
  readiness.send({ type: 'rules_loaded', at: clock.now() });

  const specs = (config.output.sinks.length > 0 ? config.output.sinks : ['stdout']).map(parseSinkUri);
  let store: StateStore;
  try {
    const options = { sinks: specs.map((s) => s.name), crashHook: crash };
    store = config.state.db !== undefined ? await openLmdbStateStore(config.state.db, options) : await openMemoryStateStore(options);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw exit(config.state.db !== undefined ? `${settingName('state.db')} ${config.state.db}: ${reason}` : `cannot open the state store: ${reason}`, 3);
  }

  const journal: JournalBuffer = { at: clock.now(), drafts: [], tickedAt: -1 };
  const record = (key: string, event: unknown): void => {
    journal.drafts.push({ at: journal.at, kind: CORRELATION_KIND, key, event });
  };
  const optionsFor = (rs: ActiveRules['ruleSet']) => ({
    ...runtimeOptions(config, rs),
    record,
    onNotice: (n: unknown) => log.child({ component: 'correlation' }).warn({ notice: n }, 'correlation notice'),
  });
  const defs = loaded.ruleSet.correlations.correlations;
  // The journaled kinds: correlation groups hosted by the runtime in force, the tick frontier by `journal`.
  let active: ActiveRules = { ruleSet: loaded.ruleSet, runtime: new CorrelationRuntime(defs, optionsFor(loaded.ruleSet)) };
  const correlationKinds = createCorrelationKinds(() => active.runtime, journal);
  const stateKinds = createKindRegistry(correlationKinds.kinds);
  let recovered: Recovered;
  deps.onPhase?.('replaying state');
  try {
    recovered = await recover(store, stateKinds, {
      mode: config.state.recover,
      sliceSize: REPLAY_SLICE,
      onProgress: replayProgressLogger(log.child({ component: 'state' }), clock),
    });
  } catch (error) {
    await store.close();
    throw exit(`cannot recover the state: ${error instanceof Error ? error.message : String(error)}`, 3);
  }
  if (recovered.definitionsChanged) journal.drafts.push(definitionsRecord(defs, clock.now()));
  const stateLog = log.child({ component: 'state' });
  if (recovered.unreadableSnapshots.length > 0) {
    stateLog.warn({ snapshots: recovered.unreadableSnapshots, fromSeq: recovered.snapshotSeq }, 'unreadable snapshots passed over');
  }
  if (recovered.skipped.length > 0) stateLog.warn({ records: recovered.skipped }, 'journal records skipped (--state-recover skip)');
  if (recovered.undecodable > 0 || recovered.unknownSnapshotKinds.length > 0) {
    stateLog.warn({ undecodable: recovered.undecodable, unknownKinds: recovered.unknownSnapshotKinds }, 'snapshot entries left out');
  }
  const lost = correlationKinds.report();
  stateLog.info(
    { replayed: recovered.replayed, snapshotSeq: recovered.snapshotSeq, dropped: lost.dropped, groups: active.runtime.stateEntries },
    'state recovered',
  );
  /** Logs and counts the groups a rule change cost (at start-up and at every reload). */
  const reportDropped = (dropped: readonly DroppedCorrelationState[], logger: Logger): void => {
    if (dropped.length === 0) return;
    for (const d of dropped) metrics.svc_correlation_state_dropped_total.inc({ reason: d.reason }, d.groups);
    logger.info({ correlations: dropped }, 'correlation state dropped');
  };
  reportDropped(lost.droppedState, stateLog);
  deps.onPhase?.('starting the data path');
  const setRuleGauges = (): void => {
    metrics.svc_detection_rules_loaded.set(active.ruleSet.engine.rules.length);
    metrics.svc_correlation_rules_loaded.set(active.ruleSet.correlations.correlations.length);
    metrics.svc_correlation_state_entries.set(active.runtime.stateEntries);
  };
  setRuleGauges();

  const dlqPath = config.output.dlq === undefined ? undefined : config.output.dlq.slice('file://'.length).split('?')[0];
  if (dlqPath !== undefined) {
    try {
      await prepareAppendFile(dlqPath);
    } catch (error) {
      await store.close();
      throw exit(`${settingName('output.dlq')} ${config.output.dlq ?? ''}: ${error instanceof Error ? error.message : String(error)}`, 3);
    }
  }
  const capacity = config.input.buffer_size;
  const dlq = createDlqWriter(ctx, dlqPath === undefined ? undefined : (text) => appendFile(dlqPath, text), capacity);
  const decoder = createDecoder({ format: config.input.format, syslog_tz_minutes: 0 }, ctx, dlqPath === undefined ? undefined : dlq);
  const sinkDepths = new SinkQueueDepths(metrics.svc_output_queue_depth, metrics.svc_sink_queue_depth);
  const workers = specs.map((spec) => {
    const target =
      spec.kind === 'file'
        ? createFileSink({ path: spec.path ?? '', on_full: spec.onFull }, ctx, store)
        : createStdoutSink({ on_full: spec.onFull }, ctx, deps.stdout ?? process.stdout);
    return new SinkWorker(target, store, ctx, {
      capacity,
      retryMax: config.output.retry_max,
      backoffBaseMs: config.output.backoff_base_ms,
      backoffMaxMs: config.output.backoff_max_ms,
      batchMax: Math.min(config.input.batch_size, capacity),
    }, dlq, crash, sinkDepths);
  });
  for (const [i, w] of workers.entries()) {
    try {
      await w.target.start();
    } catch (error) {
      await store.close();
      throw exit(`${settingName('output.sinks')} ${config.output.sinks[i] ?? 'stdout'}: ${error instanceof Error ? error.message : String(error)}`, 3);
    }
  }
  const tail = config.tail.enabled ? createTailFanout({ max_sessions: config.tail.max_sessions, buffer_events: config.tail.buffer_events }, ctx) : undefined;
  const queue = new InputQueue(capacity, { depth: metrics.svc_input_queue_depth, backPressure: metrics.svc_back_pressure_events_total });
  let detector: Detector;
  try {
    detector = starting === undefined ? inlineDetector(loaded.ruleSet, createBatchDetector(detectSettings(config))) : await starting;
  } catch (error) {
    for (const w of workers) await w.target.close();
    await store.close();
    throw new DaemonExit(`cannot start the detection workers: ${error instanceof Error ? error.message : String(error)}`, 3);
  }
  log.child({ component: 'detect' }).info({ workers: workerCount }, 'detection ready');
  const processor = new BatchProcessor(ctx, {
    store,
    decoder,
    detector,
    rules: () => active,
    journal,
    source: config.input.source,
    crash,
    sinkRoom: () => Promise.all(workers.map((w) => w.room())).then(() => undefined),
    committed: (results, firstOseq) => {
      for (const w of workers) w.offer(firstOseq, results);
      tail?.publish(results);
    },
  });
  const pipeline = new EventPipeline(ctx, {
    queue,
    processor,
    sinks: workers,
    store,
    batchSize: Math.min(config.input.batch_size, capacity),
    snapshotPolicy: { every: config.state.snapshot_every, intervalMs: config.state.snapshot_interval * SNAPSHOT_MS_PER_SECOND },
    snapshot: (at) => snapshotKinds(store, stateKinds, at),
  });
  await pipeline.exclusive(() => processor.commitJournal());
  pipeline.start();
  readiness.send({ type: 'state_recovered', at: clock.now() });

  const reloadLog = log.child({ component: 'reload' });
  const runReload = async (): Promise<boolean> => {
    metrics.svc_reloads_total.inc();
    const next = await loadDaemonRules(config, rulesPath);
    const failed = (reason: string, problems: number): false => {
      metrics.svc_reloads_failed_total.inc();
      readiness.send({ type: 'reload_failed', at: clock.now(), error: reason });
      reloadLog.error({ reason, problems }, 'reload failed; previous rules keep serving');
      return false;
    };
    if (!next.ok) {
      logProblems(log, next.problems);
      return failed(next.reason, next.problems.length);
    }
    try {
      await detector.prepare(next.ruleSet, next.inputs);
    } catch (error) {
      detector.discard();
      return failed(error instanceof Error ? error.message : String(error), 0);
    }
    await pipeline.exclusive(async () => {
      // Workers and main switch together: nothing is in flight here.
      detector.activate();
      const carried = carryOver(active.runtime, next.ruleSet.correlations.correlations, optionsFor(next.ruleSet));
      active = { ruleSet: next.ruleSet, runtime: carried.runtime };
      journal.drafts.push(definitionsRecord(next.ruleSet.correlations.correlations, clock.now()));
      await processor.commitJournal();
      reloadLog.info(
        {
          detectionRules: next.ruleSet.engine.rules.length,
          correlationRules: next.ruleSet.correlations.correlations.length,
          droppedGroups: carried.dropped.reduce((n, d) => n + d.groups, 0),
        },
        'rules reloaded',
      );
      reportDropped(carried.dropped, reloadLog);
    });
    setRuleGauges();
    readiness.send({ type: 'reload_succeeded', at: clock.now() });
    return true;
  };
  const reload = createReloadController(clock, runReload, reloadLog);
  const pipelineFiles = config.pipelines.filter((p) => !isBuiltinPipeline(p)).map((p) => resolve(p));
  const unwatch = await watchRuleFiles(resolve(rulesPath), pipelineFiles, () => reload.trigger('file'), reloadLog);

  const ingest = config.input.source === 'http' ? createHttpSource({}, ctx, { queue, store }) : undefined;
  const stdinDone =
    config.input.source === 'stdin' && deps.stdin !== undefined
      ? createStdinSource({ chunk_lines: Math.min(config.input.batch_size, capacity) }, ctx, { input: deps.stdin, queue })
      : undefined;

  let stopping: Promise<boolean> | undefined;
  const stop = (): Promise<boolean> => {
    stopping ??= (async () => {
      abort.abort();
      reload.stop();
      await unwatch();
      tail?.closeAll();
      const drained = await pipeline.stop(config.output.drain_timeout * 1000);
      await detector.close();
      await dlq.flush();
      for (const w of workers) await w.target.close();
      await store.close();
      return drained;
    })();
    return stopping;
  };
  const inputDone = stdinDone === undefined
    ? new Promise<void>(() => undefined)
    : stdinDone.then(async () => {
        queue.close();
        await pipeline.done();
      });

  const facade = createDaemonFacade({
    rules: () => active,
    rulesPath,
    readiness: () => {
      const snap = readiness.getSnapshot();
      if (snap.matches('ready')) return { ready: true };
      return snap.matches('not_ready') && snap.context.lastError !== undefined ? { ready: false, reloadError: snap.context.lastError } : { ready: false };
    },
    processor,
    registry,
    metrics,
    clock,
    startedAt,
    triggerReload: () => reload.trigger('api'),
    silences: createSilenceStore(),
    ...(ingest !== undefined ? { ingest } : {}),
    ...(tail !== undefined ? { tail } : {}),
  });
  return { facade, config, reload, inputDone, stop };
}

/** The directory made and the file opened for appending once, so a bad path fails start-up, not the first write. */
async function prepareAppendFile(path: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await (await open(path, 'a')).close();
}

/** Each problem of a failed load on its own line: the failure's reason names only the first. */
function logProblems(log: Logger, problems: readonly SigmaError[]): void {
  const rules = log.child({ component: 'rules' });
  for (const p of problems) rules.error({ problem: p.message, file: p.loc?.file }, 'rule problem');
}

/** The daemon's API app over the route table. */
function apiApp(daemon: Daemon, log: Logger): HttpApp {
  return createHttpApp(ROUTES, daemon.facade, {
    onError: (error, req) => log.child({ component: 'http' }).error({ err: error, path: req.path }, 'handler failed'),
  });
}

const CRASH_POINTS: readonly CrashPoint[] = ['after-eval', 'after-commit', 'after-sink-write', 'mid-snapshot'];

/**
 * `SVC_CRASH_AT=<point>[:<n>]`: SIGKILL this process the n-th time (default first) the data path
 * reaches that point (crash tests).
 */
function crashHookFromEnv(value: string | undefined): CrashHook {
  const [name, nth] = (value ?? '').split(':');
  const point = CRASH_POINTS.find((p) => p === name);
  if (point === undefined) return noCrash;
  let remaining = nth === undefined ? 1 : Math.max(1, Number.parseInt(nth, 10) || 1);
  return (p) => {
    if (p === point && --remaining === 0) process.kill(process.pid, 'SIGKILL');
  };
}

/** `SVC_DETECT_CRASH_AT=<n>`: the first detection worker throws on its n-th batch (worker restart tests). */
function detectCrashFromEnv(value: string | undefined): { detectCrashAt?: number } {
  const n = Number.parseInt(value ?? '', 10);
  return Number.isInteger(n) && n > 0 ? { detectCrashAt: n } : {};
}

/** The daemon command's action: the whole process lifecycle. Resolves with the exit code. */
export async function runDaemonCommand(options: Readonly<Record<string, unknown>>): Promise<number> {
  const log = pino({ base: { pid: process.pid } }, pino.destination({ fd: 2, sync: true }));
  let config: DaemonConfig;
  try {
    checkDaemonFlags(options, process.argv);
    const configPath = typeof options['config'] === 'string' ? options['config'] : undefined;
    // No config anywhere means the schema defaults (the contract's); `npm start` names its profile.
    const files = configPath !== undefined ? [configPath] : discoverConfigFiles({ cwd: process.cwd(), home: homedir(), env: process.env });
    const loaded = loadDaemonConfig({ files, env: process.env, flags: options, readFile: (path) => readFileSync(path, 'utf8') });
    for (const w of loaded.warnings) log.warn({ warning: w }, 'config warning');
    config = loaded.config;
    refuseUnavailableSettings(config);
    // Before anything binds: a daemon without rules has nothing to serve.
    if (options['dryRun'] !== true) requireRules(config);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`sigmad: ${error.message}\n`);
      return 3;
    }
    throw error;
  }
  if (options['dryRun'] === true) {
    process.stdout.write(renderEffectiveConfig(config));
    return 0;
  }
  const addr = parseListenAddress(config.api.addr);
  if ('error' in addr) {
    process.stderr.write(`sigmad: ${addr.error}\n`);
    return 3;
  }
  // Signals are caught from here on: one during start-up ends it with the listener closed.
  const stopSignal = new Promise<string>((resolveSignal) => {
    process.once('SIGTERM', () => resolveSignal('SIGTERM'));
    process.once('SIGINT', () => resolveSignal('SIGINT'));
  });
  // A reload asked for during start-up has nothing to do (the rules are being read), but SIGHUP's
  // default action would kill the process.
  let reload: ReloadController | undefined;
  process.on('SIGHUP', () => reload?.trigger('signal'));
  // The listener comes up before rules load and state replays, so /healthz answers and /readyz
  // shows `starting` (503) meanwhile; everything else answers 503 `daemon starting` until ready.
  const registry = new Registry();
  let phase: StartupPhase = 'loading rules';
  const app = createStartupApp(ROUTES, {
    phase: () => phase,
    metrics: async () => ({ contentType: registry.contentType, text: await registry.metrics() }),
  });
  let server: Awaited<ReturnType<typeof listenHttp>>;
  try {
    server = await listenHttp(app, addr, config.api.adapter);
  } catch (error) {
    // One line naming the flag, as for every start-up error of a setting.
    process.stderr.write(`sigmad: ${settingName('api.addr')} ${config.api.addr}: cannot listen: ${error instanceof Error ? error.message : String(error)}\n`);
    return 3;
  }
  // `addr` stays last before `msg`: the bench and tests read the bound port from this line.
  log.info({ component: 'http', adapter: server.adapter, addr: formatListenAddress(server.address) }, 'listening');
  const building = buildDaemon(config, {
    log,
    registry,
    onPhase: (next) => (phase = next),
    crashHook: crashHookFromEnv(process.env['SVC_CRASH_AT']),
    ...detectCrashFromEnv(process.env['SVC_DETECT_CRASH_AT']),
    ...(config.input.source === 'stdin' ? { stdin: process.stdin } : {}),
    stdout: process.stdout,
  });
  let daemon: Daemon;
  try {
    const first = await Promise.race([building.then((d) => ({ daemon: d })), stopSignal.then((signal) => ({ signal }))]);
    if ('signal' in first) {
      // Nothing was accepted yet; leaving mid-start-up is no worse than a crash, which the state survives.
      building.catch(() => undefined);
      log.info({ signal: first.signal, phase }, 'stopped during start-up');
      await server.close(1000);
      return 0;
    }
    daemon = first.daemon;
  } catch (error) {
    await server.close(1000);
    // One line, as for config errors: the message names the flag or the rule problem.
    if (error instanceof DaemonExit || error instanceof ConfigError) {
      process.stderr.write(`sigmad: ${error.message.replace(/\s*\n\s*/g, '; ')}\n`);
      return error.exitCode;
    }
    // Anything else is a start-up error too (§2.3); returning lets the action exit despite running workers.
    log.error({ err: error }, 'daemon failed to start');
    process.stderr.write(`sigmad: start-up failed: ${error instanceof Error ? error.message : String(error)}\n`);
    return 3;
  }
  reload = daemon.reload;
  app.open(apiApp(daemon, log));
  log.info({ component: 'daemon' }, 'daemon ready');
  // Once, whichever comes first: a signal or the end of stdin (closing the listener twice is unsafe).
  let stopping: Promise<number> | undefined;
  const shutdown = (): Promise<number> =>
    (stopping ??= (async () => {
      // The listener stops accepting at once; open responses get until the drain deadline. Stopping
      // the daemon meanwhile ends tail sessions with their summary line and refuses the unadmitted
      // rest of a POST (503 with what it committed): both are answered before connections are cut.
      const closing = server.close(config.output.drain_timeout * 1000);
      const drained = await daemon.stop();
      await closing;
      if (!drained) log.warn('drain timeout passed; some events may be lost');
      log.info('stopped');
      return 0;
    })());
  return new Promise<number>((done) => {
    void stopSignal.then((signal) => {
      log.info({ signal }, 'shutting down');
      void shutdown().then(done);
    });
    void daemon.inputDone.then(() => {
      log.info('input exhausted; stopping');
      void shutdown().then(done);
    });
  });
}

/** Registers `sigmad daemon` with every flag of the config module's flag list. */
export function registerDaemonCommand(cli: CAC): void {
  const command = cli.command('daemon', 'Run the detection daemon').allowUnknownOptions();
  for (const flag of DAEMON_FLAGS) command.option(flag.option, flag.description);
  command.action(async (options: Record<string, unknown>) => {
    // Exit explicitly: an idle stdin or a lingering socket must not keep a stopped daemon alive.
    process.exit(await runDaemonCommand(options));
  });
}
