// `sigmad daemon` as a process: config from file, env and flags; the listener bound before start-up so
// /healthz and /readyz answer meanwhile; signals; shutdown once, whichever comes first of a signal
// and the end of stdin. The data path itself is built by `buildDaemon` (daemon.ts).
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import type { CAC } from 'cac';
import pino from 'pino';
import type { Logger } from 'pino';
import { Registry } from 'prom-client';
import { createHttpApp, createStartupApp, formatListenAddress, listenHttp, parseListenAddress, ROUTES, sendBufferSizing } from '../http/index.js';
import type { HttpApp } from '../http/index.js';
import type { DaemonConfig } from '../protocol/index.js';
import { createMetrics } from '../protocol/index.js';
import { noCrash } from '../state/index.js';
import { systemClock } from '../streams/index.js';
import type { CrashHook, CrashPoint } from '../state/index.js';
import { checkDaemonFlags, ConfigError, DAEMON_FLAGS, discoverConfigFiles, loadDaemonConfig, renderEffectiveConfig, requireRules, settingName } from './config.js';
import { keyPasswordEnvRefusal, plaintextRefusal } from './api-security-config.js';
import { listenTlsOptions, prepareApiSecurity, secureApp, tlsReloadStep } from './daemon-api-security.js';
import type { ApiSecurity } from './daemon-api-security.js';
import { buildDaemon, DaemonExit } from './daemon.js';
import { daemonMetricGroups } from './metric-groups.js';
import { listenUnixInput, UNIX_INPUT_PREFIX } from './daemon-unix-input.js';
import type { UnixInput } from './daemon-unix-input.js';
import type { Daemon, StartupPhase } from './daemon.js';
import type { ReloadController } from './daemon-reload.js';
import { shutdownDeadlineMs, withShutdownDeadline } from './shutdown-deadline.js';

/** The daemon's API app over the route table. */
function apiApp(daemon: Daemon, log: Logger): HttpApp {
  return createHttpApp(ROUTES, daemon.facade, {
    onError: (error, req) => log.child({ component: 'http' }).error({ err: error, path: req.path }, 'handler failed'),
  });
}

const CRASH_POINTS: readonly CrashPoint[] = ['after-eval', 'after-commit', 'after-sink-write', 'mid-snapshot', 'after-tick-commit', 'before-audit-commit', 'after-audit-commit'];

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
async function runDaemonCommand(options: Readonly<Record<string, unknown>>): Promise<number> {
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
  const refusal = plaintextRefusal(config) ?? keyPasswordEnvRefusal(process.env);
  if (refusal !== undefined) {
    process.stderr.write(`sigmad: ${refusal}\n`);
    return 3;
  }
  let security: ApiSecurity;
  try {
    security = await prepareApiSecurity(config, process.env);
  } catch (error) {
    process.stderr.write(`sigmad: ${error instanceof Error ? error.message : String(error)}\n`);
    return 3;
  }
  let unixInput: UnixInput | undefined;
  if (config.input.source.startsWith(UNIX_INPUT_PREFIX)) {
    try {
      unixInput = await listenUnixInput(config.input.source);
    } catch (error) {
      process.stderr.write(`sigmad: ${settingName('input.source')} ${config.input.source}: cannot listen: ${error instanceof Error ? error.message : String(error)}\n`);
      return 3;
    }
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
  const metrics = createMetrics(registry, { groups: daemonMetricGroups(config, security.tls !== undefined) }).handles;
  let phase: StartupPhase = 'loading rules';
  const app = createStartupApp(ROUTES, {
    phase: () => phase,
    metrics: async () => ({ contentType: registry.contentType, text: await registry.metrics() }),
  });
  let server: Awaited<ReturnType<typeof listenHttp>>;
  try {
    server = await listenHttp(secureApp(app, security, metrics, log), addr, config.api.adapter, listenTlsOptions(security, metrics, log, Date.now()));
  } catch (error) {
    // One line naming the flag, as for every start-up error of a setting.
    process.stderr.write(`sigmad: ${settingName('api.addr')} ${config.api.addr}: cannot listen: ${error instanceof Error ? error.message : String(error)}\n`);
    await unixInput?.close();
    return 3;
  }
  // `addr` stays last before `msg`: the bench and tests read the bound port from this line.
  const scheme = security.tls === undefined ? 'http' : security.tls.settings.clientCa !== undefined ? 'https+mtls' : 'https';
  log.info({ component: 'http', adapter: server.adapter, scheme, auth: security.policy !== undefined, send_buffers: sendBufferSizing(), addr: formatListenAddress(server.address) }, 'listening');
  const tlsListener = server.tls;
  const building = buildDaemon(config, {
    log,
    registry,
    onPhase: (next) => (phase = next),
    crashHook: crashHookFromEnv(process.env['SVC_CRASH_AT']),
    ...detectCrashFromEnv(process.env['SVC_DETECT_CRASH_AT']),
    ...(config.input.source === 'stdin' ? { stdin: process.stdin } : {}),
    ...(unixInput !== undefined ? { unixConnections: unixInput.connections } : {}),
    stdout: process.stdout,
    metrics,
    ...(tlsListener !== undefined && security.tls !== undefined
      ? { onReload: tlsReloadStep(tlsListener, security.tls.settings, metrics, log, () => Date.now()) }
      : {}),
  });
  let daemon: Daemon;
  try {
    const first = await Promise.race([building.then((d) => ({ daemon: d })), stopSignal.then((signal) => ({ signal }))]);
    if ('signal' in first) {
      // Nothing was accepted yet; leaving mid-start-up is no worse than a crash, which the state survives.
      building.catch(() => undefined);
      log.info({ signal: first.signal, phase }, 'stopped during start-up');
      await server.close(1000);
      await unixInput?.close();
      return 0;
    }
    daemon = first.daemon;
  } catch (error) {
    await server.close(1000);
    await unixInput?.close();
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
      await unixInput?.close();
      const drained = await daemon.stop();
      await closing;
      if (!drained) log.warn('drain timeout passed; some events may be lost');
      log.info('stopped');
      return 0;
    })());
  return new Promise<number>((done) => {
    void stopSignal.then((signal) => {
      log.info({ signal }, 'shutting down');
      void withShutdownDeadline(shutdown(), shutdownDeadlineMs(config.output.drain_timeout), { clock: systemClock, log, exit: (code) => process.exit(code) }).then(done);
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
