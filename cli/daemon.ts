// The composition root of `sigmad daemon`: config → rules → state → streams → facade. Sockets,
// signals and the process belong to the command (daemon-command.ts).
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Logger } from 'pino';
import type { Observable } from 'rxjs';
import { Registry } from 'prom-client';
import { createActor } from 'xstate';
import { CorrelationRuntime } from '../actors/index.js';
import { readinessMachine } from '../actors/index.js';
import type { DaemonFacade } from '../http/index.js';
import type { DaemonConfig, IncidentRecord } from '../protocol/index.js';
import { createMetrics } from '../protocol/index.js';
import type { MetricHandles } from '../protocol/index.js';
import type { SigmaError } from '../sigma/index.js';
import { isBuiltinPipeline } from '../sigma/index.js';
import { createKindRegistry, inspectStore, noCrash, openLmdbStateStore, openMemoryStateStore, recover, snapshotKinds } from '../state/index.js';
import type { CrashHook, Recovered, StateStore } from '../state/index.js';
import {
  admitSources,
  BatchProcessor,
  carryOver,
  CORRELATION_KIND,
  createHttpSource,
  createOtlpSource,
  createStdinSource,
  createUnixSource,
  createTailFanout,
  definitionsRecord,
  EventPipeline,
  InputQueue,
  createCorrelationKinds,
  systemClock,
} from '../streams/index.js';
import type { ActiveRules, Clock, DroppedCorrelationState, JournalBuffer, LineWritable, StageContext } from '../streams/index.js';
import { requireRules, settingName } from './config.js';
import { startDaemonAudit } from './daemon-audit.js';
import { watchStateDir } from './daemon-state-dir.js';
import { createDaemonFacade } from './daemon-facade.js';
import { loadDaemonUi } from './daemon-ui.js';
import { createReloadController, watchRuleFiles } from './daemon-reload.js';
import type { ReloadController } from './daemon-reload.js';
import { openOutputs, OutputError } from './daemon-outputs.js';
import { loadDaemonWebhooks, webhookSinkNames } from './daemon-webhooks.js';
import type { Outputs } from './daemon-outputs.js';
import { buildDaemonRules, loadDaemonRules, logRuleBuild, readDaemonRules, ruleCacheDir, runtimeOptions } from './daemon-rules.js';
import { compileDaemonInputFilter, resolveDaemonSettings } from './daemon-settings.js';
import { createDaemonAlerts, readConfiguredPipeline } from './daemon-alerts.js';
import { createDaemonTap } from './daemon-tap.js';
import { createDaemonObservers, observeSettings } from './daemon-observe.js';
import { createDaemonRouting } from './daemon-routing.js';
import { startDetection } from './daemon-detection.js';
import { openNatsInput } from './daemon-nats.js';
import { openDaemonCluster } from './daemon-cluster.js';
import { createDaemonRisk, readConfiguredRisk } from './daemon-risk.js';
import { createDaemonDispositions } from './daemon-dispositions.js';
import { createDaemonEnrichment } from './daemon-enrich.js';
import { logRecoveryLosses, replayProgressLogger } from './replay-progress.js';
import { createRulesReload } from './rules-reload.js';
import { startDaemonSources } from './daemon-sources.js';
import { daemonMetricGroups } from './metric-groups.js';
import { loadDispositionPull } from './disposition-pull.js';

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
  /** Connections of the `--input unix:///path` socket (bound by the command, like the API listener). */
  readonly unixConnections?: Observable<AsyncIterable<string | Uint8Array>>;
  /** The stdout sink's stream. */
  readonly stdout?: LineWritable;
  /** Test hook (`SVC_DETECT_CRASH_AT=<n>`): the first detection worker dies on its n-th batch. */
  readonly detectCrashAt?: number;
  /** Handles already created on `registry` (by the listener, before the daemon is built). */
  readonly metrics?: MetricHandles;
  /** Further steps of the reload pass after the rules (the listener's TLS); false when one failed. */
  readonly onReload?: () => Promise<boolean>;
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

/** Journal records replayed between turns of the event loop at start-up (about 10-20 ms of work). */
const REPLAY_SLICE = 10_000;

/** Build and start the daemon's data path (no sockets). Throws DaemonExit. */
export async function buildDaemon(config: DaemonConfig, deps: DaemonDeps): Promise<Daemon> {
  const clock = deps.clock ?? systemClock;
  const crash = deps.crashHook ?? noCrash;
  const log = deps.log;
  const startedAt = clock.now();
  const settings = resolveDaemonSettings(config);
  const registry = deps.registry ?? new Registry();
  // The alert pipeline's families render from the start, with or without a pipeline (§9.12).
  const metrics = deps.metrics ?? createMetrics(registry, { groups: daemonMetricGroups(config) }).handles;
  const abort = new AbortController();
  const ctx: StageContext = { log, metrics, clock, signal: abort.signal };
  const readiness = createActor(readinessMachine, { input: { at: startedAt } }).start();

  const rulesPath = requireRules(config);
  // A rules path that is not there is a bad flag (exit 3); what is wrong inside it fails the rule load.
  await stat(rulesPath).catch((error: unknown) => {
    throw new DaemonExit(`${settingName('rules')} ${rulesPath}: ${error instanceof Error ? error.message : String(error)}`, 3);
  });
  const sources = await startDaemonSources(config, { log, clock, metrics, nats: settings.nats }).catch((error: unknown) => {
    throw new DaemonExit(`${settingName('sources')}: ${error instanceof Error ? error.message : String(error)}`, 3);
  });
  const inputFilter = await compileDaemonInputFilter(config, settings).catch((error: unknown) => {
    throw new DaemonExit(error instanceof Error ? error.message : String(error), 3);
  });
  const texts = await readDaemonRules(config, rulesPath, sources?.pipelineValues(), ruleCacheDir(config));
  // Subscribed beside the rest of start-up and awaited just before ready: the watcher crawls the rule tree on
  // its own thread, once the cache entry read ahead on the thread pool is in (both would share the other core).
  const files = watchRuleFiles(resolve(rulesPath), { clock, log: log.child({ component: 'reload' }) }, texts.ok ? texts.ahead?.bytes : undefined);
  /** Every start-up failure from here on: the sources and watchers already started are stopped with it. */
  const exit = (message: string, code: number): DaemonExit => {
    void sources?.stop();
    void files.stop();
    return new DaemonExit(message, code);
  };
  const loaded = logRuleBuild(log, await buildDaemonRules(texts, ruleCacheDir(config)));
  if (!loaded.ok) {
    logProblems(log, loaded.problems);
    readiness.send({ type: 'load_failed', at: clock.now(), error: loaded.reason });
    // A pipeline that does not load is a bad flag (exit 3, §2.3); bad rule files fail the rule load (exit 2).
    if (loaded.failure === 'pipeline') throw exit(`${settingName('pipelines')}: ${loaded.reason}`, 3);
    throw exit(`initial rule load failed: ${loaded.reason}`, 2);
  }
  const observe = await observeSettings(config, log);
  const detect = observe === undefined ? settings.detect : { ...settings.detect, observe };
  const routing = await createDaemonRouting(config, loaded.ruleSet, loaded.inputs, { ...(sources !== undefined ? { sources } : {}), metrics, log }).catch((error: unknown) => {
    throw exit(error instanceof Error ? error.message : String(error), 3);
  });
  readiness.send({ type: 'rules_loaded', at: clock.now() });

  const webhooks = await loadDaemonWebhooks(config, process.env).catch((error: unknown) => {
    throw exit(error instanceof Error ? error.message : String(error), 3);
  });
  let store: StateStore;
  try {
    const options = { sinks: [...settings.sinks.map((s) => s.name), ...webhookSinkNames(webhooks)], crashHook: crash };
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
  const alertFile = await readConfiguredPipeline(config.alert_pipeline).catch((error: unknown) => {
    throw exit(`${settingName('alert_pipeline')}: ${error instanceof Error ? error.message : String(error)}`, 3);
  });
  const auditOn = config.state.db !== undefined && config.api.audit.enabled !== false;
  const alerts = createDaemonAlerts(alertFile, { path: config.alert_pipeline, journal, metrics, clock, log, crash, auditCommits: auditOn });
  const riskFile = await readConfiguredRisk(config.risk).catch((error: unknown) => {
    throw exit(`${settingName('risk')}: ${error instanceof Error ? error.message : String(error)}`, 3);
  });
  const risk = createDaemonRisk(riskFile, { path: config.risk, journal, metrics, clock, log });
  const pull = await loadDispositionPull(config, { log, clock }).catch((error: unknown) => {
    throw exit(`${settingName('dispositions.source')} ${config.dispositions.source ?? ''}: ${error instanceof Error ? error.message : String(error)}`, 3);
  });
  const enrichment = await createDaemonEnrichment(config.enrichers, { ctx, policy: config.engine.egress_policy, env: process.env, ...(sources !== undefined ? { sources: sources.cache } : {}) }).catch((error: unknown) => {
    throw exit(`${settingName('enrichers')}: ${error instanceof Error ? error.message : String(error)}`, 3);
  });
  let dispositions;
  try {
    dispositions = createDaemonDispositions(config.dispositions, {
      journal, metrics, clock, log, auditCommits: auditOn,
      ...(pull !== undefined ? { pull } : {}),
      incidentRules: (id) => {
        const counts = alerts.incidents.get(id)?.['rule_counts'];
        return typeof counts === 'object' && counts !== null ? Object.keys(counts) : undefined;
      },
    });
  } catch (error) {
    throw exit(error instanceof Error ? error.message : String(error), 3);
  }
  const stateKinds = createKindRegistry([...correlationKinds.kinds, alerts.kind, risk.kind, ...(dispositions !== undefined ? [dispositions.kind] : [])]);
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
  logRecoveryLosses(stateLog, recovered);
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

  let outputs: Outputs;
  try {
    outputs = await openOutputs(settings, ctx, store, crash, deps.stdout ?? process.stdout, webhooks);
  } catch (error) {
    await store.close();
    if (error instanceof OutputError) throw exit(error.message, 3);
    throw error;
  }
  const natsInput = await openNatsInput(config, settings, ctx, store).catch(async (error: unknown) => {
    await outputs.close();
    await store.close();
    throw exit(`${settingName('input.source')} ${config.input.source}: ${error instanceof Error ? error.message : String(error)}`, 3);
  });
  const clusterFiles = () => ({ alert: alerts.stage.pipeline.configFile ?? alertFile, risk: risk.stage.layer.configFile ?? riskFile });
  const cluster = await openDaemonCluster(config, settings, ctx, store, () => ({ defs: active.runtime.definitions, options: runtimeOptions(config, active.ruleSet) }), clusterFiles).catch(async (error: unknown) => {
    await natsInput?.close();
    await outputs.close();
    await store.close();
    throw exit(`${settingName('cluster.url')} ${config.cluster.url ?? ''}: ${error instanceof Error ? error.message : String(error)}`, 3);
  });
  const workers = outputs.sinks;
  const capacity = settings.capacity;
  const tail = config.tail.enabled ? createTailFanout({ max_sessions: config.tail.max_sessions, buffer_events: config.tail.buffer_events }, ctx) : undefined;
  const tap = createDaemonTap(config, ctx, settings.detect);
  const observers = createDaemonObservers(config, observe, { clock, metrics, ruleSet: () => active.ruleSet, ...(routing !== undefined && config.logsource_routing.enabled ? { routingPruning: routing.pruning } : {}) });
  const queue = new InputQueue(capacity, { depth: metrics.svc_input_queue_depth, backPressure: metrics.svc_back_pressure_events_total });
  let daemonReady = (): void => undefined;
  const workersAfter = new Promise<void>((resolve) => (daemonReady = resolve));
  const detector = startDetection(loaded, { ...settings, detect }, log, { crashAtBatch: deps.detectCrashAt, filter: inputFilter, routing, ruleCache: ruleCacheDir(config), workersAfter });
  const processor = new BatchProcessor(ctx, {
    store,
    decoder: outputs.decoder,
    detector,
    rules: () => active,
    journal,
    source: config.input.source,
    crash,
    sinkRoom: () => Promise.all(workers.map((w) => w.room())).then(() => undefined),
    committed: (results, firstOseq, encoded) => {
      for (const w of workers) w.offer(firstOseq, results, encoded);
      tail?.publish(results);
    },
    alerts: alerts.stage,
    ...(tap !== undefined ? { observe: tap } : {}),
    ...(observers !== undefined ? { observed: observers.observed } : {}),
    ...(enrichment !== undefined ? { enrich: enrichment.stage } : {}),
    risk: risk.stage,
    ...(cluster !== undefined ? { hits: cluster.hits } : {}),
    ...(cluster?.stateful !== undefined ? { stateful: cluster.stateful } : {}),
  });
  const pipeline = new EventPipeline(ctx, {
    queue,
    processor,
    sinks: workers,
    store,
    batchSize: settings.batchSize,
    snapshotPolicy: settings.snapshotPolicy,
    snapshot: (at) => snapshotKinds(store, stateKinds, at),
  });
  alerts.start({
    pipeline,
    processor,
    deliver: (results, firstOseq) => {
      for (const w of workers) {
        w.offer(firstOseq, results);
        w.wake();
      }
    },
    rules: () => [...active.ruleSet.engine.rules.map((r) => r.rule), ...active.ruleSet.correlations.correlations.map((c) => c.rule)],
    risk: () => risk.joinable(),
  });
  risk.start({ pipeline, processor });
  cluster?.start({
    commit: (results) => pipeline.exclusive(async () => {
      const firstOseq = await processor.commitJournal(results);
      for (const w of workers) {
        w.offer(firstOseq, results);
        w.wake();
      }
      tail?.publish(results);
      return firstOseq;
    }),
    sinks: workers,
  });
  dispositions?.start({ pipeline, processor });
  await pipeline.exclusive(() => processor.commitJournal());
  pipeline.start();
  readiness.send({ type: 'state_recovered', at: clock.now() });

  const reloadLog = log.child({ component: 'reload' });
  const reloadRules = createRulesReload({
    load: async () => {
      const loaded = logRuleBuild(reloadLog, await loadDaemonRules(config, rulesPath, sources));
      return cluster?.admit(loaded) ?? loaded;
    },
    detector,
    exclusive: (fn) => pipeline.exclusive(fn),
    swap: async (next) => {
      const carried = carryOver(active.runtime, next.correlations.correlations, optionsFor(next));
      active = { ruleSet: next, runtime: carried.runtime };
      journal.drafts.push(definitionsRecord(next.correlations.correlations, clock.now()));
      await processor.commitJournal();
      reloadLog.info(
        {
          detectionRules: next.engine.rules.length,
          correlationRules: next.correlations.correlations.length,
          droppedGroups: carried.dropped.reduce((n, d) => n + d.groups, 0),
        },
        'rules reloaded',
      );
      reportDropped(carried.dropped, reloadLog);
      setRuleGauges();
    },
    readiness: (event) => readiness.send(event),
    metrics,
    problems: (problems) => logProblems(log, problems),
    clock,
    log: reloadLog,
  });
  // Each step of the pass runs whether or not the rules reloaded (daemon-semantics §15.2).
  // The alert pipeline, the rules and the listener's TLS reload together; a failure of one does not hold back the others.
  const runReload = async (): Promise<boolean> => {
    const alertsReloaded = await alerts.reload();
    const riskReloaded = await risk.reload();
    const enrichersReloaded = (await enrichment?.reload()) ?? true;
    const rulesReloaded = await reloadRules();
    cluster?.reload();
    return (await (deps.onReload?.() ?? Promise.resolve(true))) && rulesReloaded && alertsReloaded && riskReloaded && enrichersReloaded;
  };
  const controller = createReloadController(clock, runReload, reloadLog);
  const reload = sources?.follow(controller) ?? controller;
  const pipelineFiles = [...config.pipelines.filter((p) => !isBuiltinPipeline(p)).map((p) => resolve(p)), ...alerts.watched, ...risk.watched, ...(enrichment?.watched ?? []), ...(routing?.watched ?? []), ...((await sources?.watched()) ?? [])];
  const watching = files.add(pipelineFiles);
  files.bind(() => reload.trigger('file'));

  const ingest = config.input.source === 'http' ? createHttpSource({}, ctx, { store }) : undefined;
  const stdin =
    config.input.source === 'stdin' && deps.stdin !== undefined
      ? createStdinSource({ chunk_lines: settings.batchSize }, ctx, { input: deps.stdin })
      : undefined;
  const unix = deps.unixConnections !== undefined ? createUnixSource({ chunk_lines: settings.batchSize }, ctx, { connections: deps.unixConnections }) : undefined;
  const admission = admitSources([...(ingest !== undefined ? [ingest.units] : []), ...(stdin !== undefined ? [stdin] : []), ...(natsInput !== undefined ? [natsInput.units] : []), ...(unix !== undefined ? [unix] : [])], queue, ctx);
  // OTLP ingest is always on beside the primary input (§3.1); admitted apart, since it never ends and stdin's end stops the daemon.
  const otlp = createOtlpSource(ctx, { store });
  const otlpAdmission = admitSources([otlp.units], queue, ctx);

  let stopping: Promise<boolean> | undefined;
  const audit = auditOn
      ? await startDaemonAudit({ settings: config.api.audit, store, journal, pipeline, clock, metrics, log, pruneEveryMs: settings.snapshotPolicy.intervalMs, crash })
      : undefined;

  const stateDir = config.state.db !== undefined ? await watchStateDir(config.state.db, { clock, log: stateLog }) : undefined;

  const stop = (): Promise<boolean> => {
    stopping ??= (async () => {
      abort.abort();
      audit?.stop();
      stateDir?.stop();
      reload.stop();
      alerts.stop();
      risk.stop();
      dispositions?.stop();
      await files.stop();
      await sources?.stop();
      tail?.closeAll();
      tap?.closeAll();
      admission.stop();
      otlpAdmission.stop();
      await cluster?.stop(settings.drainTimeoutMs);
      const drained = await pipeline.stop(settings.drainTimeoutMs);
      await natsInput?.close();
      await detector.close();
      await outputs.close();
      await enrichment?.close();
      await store.close();
      return drained;
    })();
    return stopping;
  };
  // Only stdin ends by itself; the daemon then drains and exits.
  const inputDone = stdin === undefined
    ? new Promise<void>(() => undefined)
    : admission.done.then(async () => {
        queue.close();
        await pipeline.done();
      });

  const ui = loadDaemonUi(config, log);
  const facade = createDaemonFacade({
    rules: () => active,
    rulesPath,
    readiness: () => {
      const snap = readiness.getSnapshot();
      const stateError = stateDir?.problem();
      if (stateError !== undefined) return { ready: false, stateError };
      if (snap.matches('ready')) return { ready: true };
      return snap.matches('not_ready') && snap.context.lastError !== undefined ? { ready: false, reloadError: snap.context.lastError } : { ready: false };
    },
    processor,
    registry,
    metrics,
    clock,
    startedAt,
    triggerReload: () => reload.trigger('api'),
    silences: cluster?.silenceStore(alerts.stage) ?? alerts.silences,
    incidents: () => alerts.incidents.list() as IncidentRecord[],
    incidentApi: alerts.incidents,
    riskEntities: risk.entities,
    ...(dispositions !== undefined ? { dispositions: dispositions.api } : {}),
    ...(ingest !== undefined ? { ingest } : {}),
    otlp,
    ...(tail !== undefined ? { tail } : {}),
    ...(tap !== undefined ? { tap } : {}),
    ...(observers !== undefined ? { observers } : {}),
    ...(audit !== undefined ? { audit: audit.log } : {}),
    ...(ui !== undefined ? { ui } : {}),
    ...(sources !== undefined ? { sources } : {}),
    ...(config.state.db !== undefined ? { stateReport: () => inspectStore(store) } : {}),
    ...(cluster !== undefined ? { cluster: () => cluster.status() } : {}),
  });
  await watching;
  // The caller opens the API in this turn of the event loop; the detection workers start in the next.
  setImmediate(daemonReady);
  return { facade, config, reload, inputDone, stop };
}

/** Each problem of a failed load on its own line: the failure's reason names only the first. */
function logProblems(log: Logger, problems: readonly SigmaError[]): void {
  const rules = log.child({ component: 'rules' });
  for (const p of problems) rules.error({ problem: p.message, file: p.loc?.file }, 'rule problem');
}
