// Dynamic pipeline sources in the daemon (issue 24, daemon-semantics §11): declarations loaded and
// resolved before the first rule load, values handed to pipeline loading, refreshes merged into the
// reload path (a changed value rebuilds the pipelines through the normal, debounced reload), the
// routes' backend and the status block. Wired into `daemon.ts` with a few calls.
import { dirname, resolve } from 'node:path';
import type { Logger } from 'pino';
import type { DynamicSources } from '../http/index.js';
import type { DaemonConfig, MetricHandles, StatusRecord } from '../protocol/index.js';
import { isBuiltinPipeline } from '../sigma/index.js';
import type { SourceValues } from '../sigma/index.js';
import { SourceCache } from '../state/index.js';
import { createEgressAgent, createExtractCompiler, createSourceResolver, listenResolveControl, parseNatsUrl, RESOLVE_CONTROL_SUBJECT, SourceScheduler, subscribePush } from '../streams/index.js';
import type { Clock, NatsAuth, ResolveAllOutcome, SourceLookup, SourceSpec } from '../streams/index.js';
import { settingName } from './config.js';
import type { ReloadController } from './daemon-reload.js';
import { watchDirectory } from './watch-directory.js';
import { declarationFiles, loadAllSources } from './source-files.js';

/** File-watch debounce of `watch` sources (§11.4). */
const WATCH_DEBOUNCE_MS = 100;

export interface DaemonSourcesDeps {
  readonly log: Logger;
  readonly clock: Clock;
  /** Absent: the source metrics are not reported (the disposition pull source). */
  readonly metrics?: MetricHandles;
}

export interface DaemonSources {
  /** What pipelines' `${source.*}` references expand to now (the values the next rule build uses). */
  pipelineValues(): SourceValues;
  /** The values `pipelineValues` last handed out (what the rules in force were built from). */
  appliedValues(): SourceValues;
  /** Read side for `lookup` enrichers: a source's value in force. */
  readonly cache: SourceLookup;
  /**
   * Before a reload's rule load: re-resolves every source unless only source changes asked for the
   * reload; the reason the load must fail (a required source without a value), else undefined.
   */
  beforeLoad(): Promise<string | undefined>;
  /** `reload` with source changes merged in: a changed value triggers it, other triggers re-resolve first. */
  follow(reload: ReloadController): ReloadController;
  readonly api: DynamicSources;
  status(): NonNullable<StatusRecord['dynamic_sources']>;
  /** The declaration files (`--source`): a change reloads, as a rule file's does. */
  watched(): Promise<string[]>;
  stop(): Promise<void>;
}

/** The file watch of a `watch` source: create/modify events on `path` (or its directory coming back), debounced. */
function watchFile(clock: Clock, log: Logger) {
  return async (path: string, onChange: () => void): Promise<() => Promise<void>> => {
    let cancel: (() => void) | undefined;
    const changed = (): void => {
      cancel?.();
      cancel = clock.setTimer(() => {
        cancel = undefined;
        onChange();
      }, WATCH_DEBOUNCE_MS);
    };
    const stop = await watchDirectory(dirname(path), {
      events: (events) => {
        if (events.some((e) => e.path === path && e.type !== 'delete')) changed();
      },
      restored: changed,
    }, { clock, log });
    return async () => {
      cancel?.();
      await stop();
    };
  };
}

/** A scheduler over `specs`: HTTP through the egress policy, cache on disk under the state directory. */
export function createSourceScheduler(specs: readonly SourceSpec[], config: DaemonConfig, deps: DaemonSourcesDeps & { readonly cache: SourceCache }): SourceScheduler {
  const log = deps.log;
  return new SourceScheduler(specs, {
    clock: deps.clock,
    log,
    resolve: createSourceResolver(createEgressAgent({ policy: config.engine.egress_policy })),
    cache: deps.cache,
    ...(deps.metrics !== undefined ? { metrics: deps.metrics } : {}),
    watchFile: watchFile(deps.clock, log),
    subscribe: (spec, onPayload) => {
      if (spec.target.type !== 'nats') return Promise.reject(new Error('push needs a nats source'));
      return subscribePush(spec.target.url, spec.target.subject, onPayload);
    },
  });
}

/** Loads the declarations of `paths`; a declaration error throws (the caller exits 3). */
export function loadSourceSpecs(paths: readonly string[], pipelineFiles: readonly string[], log: Logger): Promise<SourceSpec[]> {
  return loadAllSources(paths, pipelineFiles, { extracts: createExtractCompiler(), log });
}

/** The NATS server the control subject is listened on: the input's, else a NATS sink's or DLQ's, else the cluster's. */
function daemonNatsServer(config: DaemonConfig): string | undefined {
  const urls = [config.input.source, ...config.output.sinks, config.output.dlq ?? '', config.cluster.url ?? ''];
  const url = urls.find((u) => u.startsWith('nats://'));
  return url === undefined ? undefined : parseNatsUrl(url).server;
}

/** A reload's view of the declarations: what they are, and a key that changes when any of them does. */
interface Declarations {
  readonly specs: readonly SourceSpec[];
  readonly key: string;
}

async function readDeclarations(config: DaemonConfig, log: Logger): Promise<Declarations> {
  const specs = await loadSourceSpecs(config.sources, config.pipelines.filter((p) => !isBuiltinPipeline(p)), log);
  // Extractors serialise as their language and expression, the rest is plain data.
  return { specs, key: JSON.stringify(specs) };
}

/**
 * Loads, resolves and starts the sources of `daemon.sources` and of deprecated pipeline blocks;
 * undefined when there are none. Throws when a declaration is bad or a required source has no value.
 * A reload reads the declarations again: a changed set replaces the scheduler once every required
 * source of the new set has a value; a bad declaration or an unserved source fails the reload and
 * keeps the sources in force.
 */
export async function startDaemonSources(config: DaemonConfig, deps: DaemonSourcesDeps & { readonly nats?: NatsAuth }): Promise<DaemonSources | undefined> {
  const log = deps.log.child({ component: 'sources' });
  let declared = await readDeclarations(config, log);
  if (declared.specs.length === 0 && config.sources.length === 0) return undefined;
  const cache = SourceCache.open(config.state.db);
  const schedulerOf = (specs: readonly SourceSpec[]): SourceScheduler => createSourceScheduler(specs, config, { ...deps, log, cache });
  const unresolved = (outcome: ResolveAllOutcome): string => outcome.failed.map((f) => `${f.id} (${f.error})`).join(', ');
  let scheduler = schedulerOf(declared.specs);
  let stopControl: (() => Promise<void>) | undefined;
  const stop = async (): Promise<void> => {
    await stopControl?.();
    await scheduler.stop();
    await cache.close();
  };
  const first = await scheduler.resolveAll();
  if (first.failed.length > 0) {
    await stop();
    throw new Error(`dynamic source ${unresolved(first)} has no value: required sources must resolve at start-up (or be served from the cache of a previous run)`);
  }
  await scheduler.start();
  const natsServer = daemonNatsServer(config);
  if (natsServer !== undefined) {
    stopControl = await listenResolveControl(natsServer, deps.nats ?? { requireTls: false }, (id) => {
      log.info({ source: id ?? 'all', subject: RESOLVE_CONTROL_SUBJECT }, 'resolve asked on the control subject');
      scheduler.trigger(id);
    }).catch((error: unknown) => {
      log.warn({ err: error, server: natsServer, subject: RESOLVE_CONTROL_SUBJECT }, 'control subject unavailable; sources resolve on their own schedule and through the API');
      return undefined;
    });
  }
  const noIncludeOf = (specs: readonly SourceSpec[]): readonly string[] =>
    specs.filter((s) => !config.engine.allow_remote_include && (s.target.type === 'http' || s.target.type === 'nats')).map((s) => s.id);
  // The values the rules in force were built from: a change relative to them asks for a reload.
  let handed: SourceValues = { values: scheduler.values(), noInclude: noIncludeOf(declared.specs) };
  let applied = JSON.stringify(handed.values);
  // A trigger other than a source change (file, SIGHUP, API) re-reads the declarations and re-resolves every source before the load (§11.3).
  let resolveFirst = false;
  let onChange: (() => void) | undefined;
  const followChanges = (s: SourceScheduler): void => {
    s.changes.subscribe(() => {
      if (s === scheduler && JSON.stringify(s.values()) !== applied) onChange?.();
    });
  };
  followChanges(scheduler);
  /** Puts a new declaration set in force; the reason it cannot be, else undefined. */
  const replace = async (next: Declarations): Promise<string | undefined> => {
    const replacement = schedulerOf(next.specs);
    const outcome = await replacement.resolveAll();
    if (outcome.failed.length > 0) {
      await replacement.stop();
      return `required dynamic source ${unresolved(outcome)} has no value; the previous sources stay in force`;
    }
    await replacement.start();
    const before = new Set(declared.specs.map((s) => s.id));
    const after = new Set(next.specs.map((s) => s.id));
    log.info({ added: [...after].filter((id) => !before.has(id)), removed: [...before].filter((id) => !after.has(id)), sources: after.size }, 'source declarations changed');
    const old = scheduler;
    scheduler = replacement;
    declared = next;
    followChanges(replacement);
    await old.stop();
    return undefined;
  };
  return {
    pipelineValues() {
      handed = { values: scheduler.values(), noInclude: noIncludeOf(declared.specs) };
      applied = JSON.stringify(handed.values);
      return handed;
    },
    appliedValues: () => handed,
    cache: {
      get: (id) => {
        const value = scheduler.value(id);
        return value === undefined ? undefined : { value };
      },
    },
    async beforeLoad() {
      if (!resolveFirst) return undefined;
      resolveFirst = false;
      let next: Declarations;
      try {
        next = await readDeclarations(config, log);
      } catch (error) {
        return `${settingName('sources')}: ${error instanceof Error ? error.message : String(error)}; the previous sources stay in force`;
      }
      if (next.key !== declared.key) return replace(next);
      const outcome = await scheduler.resolveAll();
      if (outcome.failed.length === 0) return undefined;
      return `required dynamic source ${unresolved(outcome)} has no value`;
    },
    follow(reload) {
      onChange = () => {
        log.info('a dynamic source changed; rebuilding the pipelines');
        reload.trigger('source');
      };
      return {
        trigger(source) {
          if (source !== 'source') resolveFirst = true;
          return reload.trigger(source);
        },
        stop: () => reload.stop(),
      };
    },
    api: {
      list: () => scheduler.list(),
      resolve: (id) => scheduler.trigger(id),
      invalidate: (id) => void scheduler.invalidate(id).catch((error: unknown) => log.warn({ source: id, err: error }, 'source cache removal failed')),
    },
    status: () => scheduler.status(),
    watched: async () => (await Promise.all(config.sources.map((p) => declarationFiles(p)))).flat().map((f) => resolve(f)),
    stop,
  };
}
