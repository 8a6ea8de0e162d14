// Dynamic pipeline sources in the daemon (issue 24, daemon-semantics §11): declarations loaded and
// resolved before the first rule load, values handed to pipeline loading, refreshes merged into the
// reload path (a changed value rebuilds the pipelines through the normal, debounced reload), the
// routes' backend and the status block. Wired into `daemon.ts` with a few calls.
import { dirname } from 'node:path';
import watcher from '@parcel/watcher';
import type { Logger } from 'pino';
import type { DynamicSources } from '../http/index.js';
import type { DaemonConfig, MetricHandles, StatusRecord } from '../protocol/index.js';
import { isBuiltinPipeline } from '../sigma/index.js';
import type { SourceValues } from '../sigma/index.js';
import { SourceCache } from '../state/index.js';
import { createEgressAgent, createExtractCompiler, createSourceResolver, SourceScheduler, subscribePush } from '../streams/index.js';
import type { Clock, SourceLookup, SourceSpec } from '../streams/index.js';
import type { ReloadController } from './daemon-reload.js';
import { loadAllSources } from './source-files.js';

/** File-watch debounce of `watch` sources (§11.4). */
const WATCH_DEBOUNCE_MS = 100;

export interface DaemonSourcesDeps {
  readonly log: Logger;
  readonly clock: Clock;
  /** Absent: the source metrics are not reported (the disposition pull source). */
  readonly metrics?: MetricHandles;
}

export interface DaemonSources {
  /** What pipelines' `${source.*}` references expand to now. */
  pipelineValues(): SourceValues;
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
  stop(): Promise<void>;
}

/** The file watch of a `watch` source: create/modify events on `path`, debounced. */
function watchFile(clock: Clock, log: Logger) {
  return async (path: string, onChange: () => void): Promise<() => Promise<void>> => {
    let cancel: (() => void) | undefined;
    const sub = await watcher.subscribe(dirname(path), (err, events) => {
      if (err !== null) return log.warn({ err, path }, 'source file watcher error');
      if (!events.some((e) => e.path === path && e.type !== 'delete')) return;
      cancel?.();
      cancel = clock.setTimer(() => {
        cancel = undefined;
        onChange();
      }, WATCH_DEBOUNCE_MS);
    });
    return async () => {
      cancel?.();
      await sub.unsubscribe();
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

/**
 * Loads, resolves and starts the sources of `daemon.sources` and of deprecated pipeline blocks;
 * undefined when there are none. Throws when a declaration is bad or a required source has no value.
 */
export async function startDaemonSources(config: DaemonConfig, deps: DaemonSourcesDeps): Promise<DaemonSources | undefined> {
  const log = deps.log.child({ component: 'sources' });
  const pipelineFiles = config.pipelines.filter((p) => !isBuiltinPipeline(p));
  const specs = await loadSourceSpecs(config.sources, pipelineFiles, log);
  if (specs.length === 0) return undefined;
  const cache = SourceCache.open(config.state.db);
  const scheduler = createSourceScheduler(specs, config, { ...deps, log, cache });
  const stop = async (): Promise<void> => {
    await scheduler.stop();
    await cache.close();
  };
  const first = await scheduler.resolveAll();
  if (first.failed.length > 0) {
    await stop();
    throw new Error(`dynamic source ${first.failed.map((f) => `${f.id} (${f.error})`).join(', ')} has no value: required sources must resolve at start-up (or be served from the cache of a previous run)`);
  }
  await scheduler.start();
  const noInclude = specs.filter((s) => !config.engine.allow_remote_include && (s.target.type === 'http' || s.target.type === 'nats')).map((s) => s.id);
  // The values the rules in force were built from: a change relative to them asks for a reload.
  let applied = JSON.stringify(scheduler.values());
  // A trigger other than a source change (file, SIGHUP, API) re-resolves every source before the load (§11.3).
  let resolveFirst = false;
  return {
    pipelineValues() {
      const values = scheduler.values();
      applied = JSON.stringify(values);
      return { values, noInclude };
    },
    cache: {
      get: (id) => {
        const value = scheduler.value(id);
        return value === undefined ? undefined : { value };
      },
    },
    async beforeLoad() {
      if (!resolveFirst) return undefined;
      resolveFirst = false;
      const outcome = await scheduler.resolveAll();
      if (outcome.failed.length === 0) return undefined;
      return `required dynamic source ${outcome.failed.map((f) => `${f.id} (${f.error})`).join(', ')} has no value`;
    },
    follow(reload) {
      const wrapped: ReloadController = {
        trigger(source) {
          if (source !== 'source') resolveFirst = true;
          return reload.trigger(source);
        },
        stop: () => reload.stop(),
      };
      scheduler.changes.subscribe(() => {
        if (JSON.stringify(scheduler.values()) === applied) return;
        log.info('a dynamic source changed; rebuilding the pipelines');
        reload.trigger('source');
      });
      return wrapped;
    },
    api: {
      list: () => scheduler.list(),
      resolve: (id) => scheduler.trigger(id),
      invalidate: (id) => void scheduler.invalidate(id).catch((error: unknown) => log.warn({ source: id, err: error }, 'source cache removal failed')),
    },
    status: () => scheduler.status(),
    stop,
  };
}
