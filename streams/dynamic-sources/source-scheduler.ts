// Hosts one refresh actor per dynamic source (daemon-semantics §11.4, issue 24): runs the resolve the
// actor asks for, applies the source's error policy, keeps the last good value (memory and the
// persistent cache), arms the actor's deadline on the injected clock, and publishes every change of
// a source's value on `changes` (the daemon merges that stream into its reload path).
import type { Logger } from 'pino';
import { Subject } from 'rxjs';
import type { Observable } from 'rxjs';
import { createActor, waitFor } from 'xstate';
import type { Actor } from 'xstate';
import { sourceRefreshMachine } from '../../actors/index.js';
import type { RefreshPolicy } from '../../actors/index.js';
import type { DynamicSourceInfo, MetricHandles } from '../../protocol/index.js';
import type { CachedSourceValue, SourceCache } from '../../state/index.js';
import type { Clock } from '../stage-context.js';
import { asSourceError } from './source-error.js';
import type { SourceError } from './source-error.js';
import type { SourceResolver } from './resolve-source.js';
import { valueOf } from './resolve-source.js';
import type { SourceSpec } from './source-spec.js';

/** Optional sources are re-triggered once this long after start (§11.4). */
const OPTIONAL_RETRY_MS = 5_000;

export interface SourceSchedulerDeps {
  readonly clock: Clock;
  readonly log: Logger;
  readonly resolve: SourceResolver;
  readonly cache: SourceCache;
  /** Absent for the disposition pull source, which reports no source metrics (§11.6). */
  readonly metrics?: MetricHandles;
  /** Jitter of the failure backoff, in [0, 1). */
  readonly random?: () => number;
  /** File watch of `watch` sources: calls `onChange` (debounced by the caller) until the returned stop. */
  readonly watchFile?: (path: string, onChange: () => void) => Promise<() => Promise<void>>;
  /** Subscription of `push` sources: every message's payload until the returned stop. */
  readonly subscribe?: (spec: SourceSpec, onPayload: (payload: Uint8Array) => void) => Promise<() => Promise<void>>;
}

/** A source's value changed (what the reload path and the pull source consume). */
export interface SourceChange {
  readonly id: string;
  readonly value: unknown;
  /** A push message (bypasses the cache) rather than a resolve. */
  readonly pushed: boolean;
}

/** The outcome of resolving every source: the required ones that have no value to serve. */
export interface ResolveAllOutcome {
  readonly failed: readonly { readonly id: string; readonly error: string }[];
}

interface Host {
  readonly spec: SourceSpec;
  readonly actor: Actor<typeof sourceRefreshMachine>;
  /** The value in force; undefined until one was resolved, served from cache or defaulted. */
  current?: { readonly value: unknown };
  /** The last attempt left a required source without a value of its own to serve. */
  unserved: boolean;
  lastResolvedMs?: number;
  lastError?: string;
  armed: number;
  cancelTimer?: () => void;
  started: number;
}

export class SourceScheduler {
  private readonly hosts = new Map<string, Host>();
  private readonly cached: Map<string, CachedSourceValue>;
  private readonly changed = new Subject<SourceChange>();
  private readonly stops: (() => Promise<void>)[] = [];
  private cancelRetry?: () => void;
  private counts = { resolves: 0, errors: 0, cacheHits: 0 };
  private stopped = false;

  constructor(
    private readonly specs: readonly SourceSpec[],
    private readonly deps: SourceSchedulerDeps,
  ) {
    this.cached = deps.cache.entries();
    for (const spec of specs) {
      const actor = createActor(sourceRefreshMachine, { input: { policy: spec.refresh } });
      const host: Host = { spec, actor, unserved: false, armed: -1, started: 0 };
      this.hosts.set(spec.id, host);
      actor.subscribe((snap) => this.follow(host, snap.context.started, snap.context.deadline));
      actor.start();
    }
  }

  /** Every change of a source's value. */
  get changes(): Observable<SourceChange> {
    return this.changed.asObservable();
  }

  get size(): number {
    return this.hosts.size;
  }

  /** Starts watches and push subscriptions, and the one-time retry of optional sources. */
  async start(): Promise<void> {
    const log = this.deps.log;
    for (const host of this.hosts.values()) {
      const { spec } = host;
      if (spec.refresh.kind === 'watch' && spec.target.type === 'file' && this.deps.watchFile !== undefined) {
        this.stops.push(await this.deps.watchFile(spec.target.path, () => this.trigger(spec.id)));
      }
      if (spec.refresh.kind === 'push' && this.deps.subscribe !== undefined) {
        try {
          this.stops.push(await this.deps.subscribe(spec, (payload) => this.push(host, payload)));
        } catch (error) {
          log.error({ source: spec.id, err: error }, 'push subscription failed; the source keeps its resolved value');
        }
      }
    }
    this.cancelRetry = this.deps.clock.setTimer(() => {
      for (const host of this.hosts.values()) if (!host.spec.required) this.trigger(host.spec.id);
    }, OPTIONAL_RETRY_MS);
  }

  /** Resolves every source (one at a time per source; sources in parallel) and reports the required ones left without a value. */
  async resolveAll(): Promise<ResolveAllOutcome> {
    const hosts = [...this.hosts.values()];
    for (const host of hosts) host.actor.send({ type: 'trigger', at: this.deps.clock.now() });
    await Promise.all(hosts.map((h) => waitFor(h.actor, (s) => !s.matches('resolving'), { timeout: Infinity })));
    return {
      failed: hosts.filter((h) => h.spec.required && h.unserved).map((h) => ({ id: h.spec.id, error: h.lastError ?? 'no value' })),
    };
  }

  /** Re-resolve one source or all (the API, SIGHUP); `already_pending` when a resolve is already queued behind a running one. */
  trigger(id?: string): 'triggered' | 'already_pending' {
    const hosts = id === undefined ? [...this.hosts.values()] : [this.hosts.get(id)].filter((h) => h !== undefined);
    if (hosts.length > 0 && hosts.every((h) => h.actor.getSnapshot().matches({ resolving: 'queued' }))) return 'already_pending';
    for (const h of hosts) h.actor.send({ type: 'trigger', at: this.deps.clock.now() });
    return 'triggered';
  }

  /** Forgets the cached value (memory and disk); the value in force stays until the next resolve. */
  async invalidate(id: string): Promise<void> {
    this.cached.delete(id);
    await this.deps.cache.remove(id);
  }

  /** The values in force, by id (what `${source.*}` expands to and `lookup` enrichers read). */
  values(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [id, host] of this.hosts) if (host.current !== undefined) out[id] = host.current.value;
    return out;
  }

  /** One source's value in force, or undefined. */
  value(id: string): unknown {
    return this.hosts.get(id)?.current?.value;
  }

  list(): DynamicSourceInfo[] {
    return [...this.hosts.values()].map((h) => ({
      source_id: h.spec.id,
      pipeline: h.spec.origin,
      type: h.spec.target.type.charAt(0).toUpperCase() + h.spec.target.type.slice(1),
      refresh: refreshName(h.spec.refresh),
      required: h.spec.required,
      state: stateName(h.actor.getSnapshot()),
      last_resolved: h.lastResolvedMs === undefined ? null : new Date(h.lastResolvedMs).toISOString(),
      last_error: h.lastError ?? null,
    }));
  }

  /** The `dynamic_sources` block of `GET /api/v1/status` (§11.5). */
  status(): { total: number; resolves_total: number; errors_total: number; cache_hits: number } {
    const total = [...this.hosts.values()].filter((h) => h.lastResolvedMs !== undefined).length;
    return { total, resolves_total: this.counts.resolves, errors_total: this.counts.errors, cache_hits: this.counts.cacheHits };
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.cancelRetry?.();
    for (const host of this.hosts.values()) {
      host.cancelTimer?.();
      host.actor.stop();
    }
    await Promise.all(this.stops.map((s) => s()));
    this.changed.complete();
  }

  /** Reacts to the actor: a new resolve to run, a deadline to arm. */
  private follow(host: Host, started: number, deadline: number): void {
    if (this.stopped) return;
    if (started > host.started) {
      host.started = started;
      void this.run(host);
    }
    if (deadline !== host.armed) {
      host.cancelTimer?.();
      host.cancelTimer = undefined;
      host.armed = deadline;
      if (deadline >= 0) {
        const clock = this.deps.clock;
        host.cancelTimer = clock.setTimer(() => {
          host.cancelTimer = undefined;
          host.actor.send({ type: 'tick', now: Math.max(clock.now(), deadline) });
        }, Math.max(0, deadline - clock.now()));
      }
    }
  }

  private async run(host: Host): Promise<void> {
    const { spec } = host;
    const { clock, metrics } = this.deps;
    const began = clock.now();
    this.counts.resolves++;
    metrics?.svc_source_resolves_total.inc({ source_id: spec.id, source_type: spec.target.type });
    let outcome: { ok: true; value: unknown } | { ok: false; error: SourceError };
    try {
      outcome = { ok: true, value: await this.deps.resolve(spec) };
    } catch (error) {
      outcome = { ok: false, error: asSourceError(error) };
    }
    const now = clock.now();
    metrics?.svc_source_resolve_seconds.observe((now - began) / 1000);
    if (this.stopped) return;
    if (outcome.ok) {
      this.served(host, outcome.value, now);
      host.lastError = undefined;
      const entry = { value: outcome.value, fetched_at: now };
      this.cached.set(spec.id, entry);
      await this.deps.cache.put(spec.id, entry).catch((error: unknown) => this.deps.log.warn({ source: spec.id, err: error }, 'source cache write failed'));
      host.actor.send({ type: 'resolved', at: now });
      return;
    }
    this.failed(host, outcome.error, now);
    host.actor.send({ type: 'resolve_failed', at: now, jitter: (this.deps.random ?? Math.random)() });
  }

  /** A failed attempt under the source's `on_error` (§11.2). */
  private failed(host: Host, error: SourceError, now: number): void {
    const { spec } = host;
    this.counts.errors++;
    this.deps.metrics?.svc_source_resolve_errors_total.inc({ source_id: spec.id, error_kind: error.kind });
    host.lastError = `${error.kind}: ${error.message}`;
    const cached = this.cached.get(spec.id);
    if (spec.onError === 'use_cached' && cached !== undefined) {
      this.counts.cacheHits++;
      this.deps.metrics?.svc_source_cache_hits_total.inc();
      this.deps.log.warn({ source: spec.id, error: host.lastError, fetchedAt: new Date(cached.fetched_at).toISOString() }, 'source failed; serving its cached value');
      return this.served(host, cached.value, now);
    }
    if (spec.onError === 'use_default' && spec.fallback !== undefined) {
      this.deps.log.warn({ source: spec.id, error: host.lastError }, 'source failed; serving its default');
      return this.served(host, spec.fallback.value, now);
    }
    this.deps.log.error({ source: spec.id, error: host.lastError, required: spec.required }, 'source failed');
    // An optional source resolves to null; a required one keeps the value in force and fails the next load.
    host.unserved = spec.required;
    if (!spec.required) this.apply(host, null, false);
  }

  private served(host: Host, value: unknown, now: number): void {
    host.unserved = false;
    host.lastResolvedMs = now;
    this.deps.metrics?.svc_source_last_resolved_timestamp.set({ source_id: host.spec.id }, now / 1000);
    this.apply(host, value, false);
  }

  private push(host: Host, payload: Uint8Array): void {
    let value: unknown;
    try {
      value = valueOf(host.spec, payload);
    } catch (error) {
      const e = asSourceError(error);
      this.counts.errors++;
      this.deps.metrics?.svc_source_resolve_errors_total.inc({ source_id: host.spec.id, error_kind: e.kind });
      host.lastError = `${e.kind}: ${e.message}`;
      this.deps.log.warn({ source: host.spec.id, error: host.lastError }, 'push message ignored');
      return;
    }
    host.unserved = false;
    host.actor.send({ type: 'pushed', at: this.deps.clock.now() });
    this.apply(host, value, true);
  }

  private apply(host: Host, value: unknown, pushed: boolean): void {
    const before = host.current;
    host.current = { value };
    if (before === undefined || JSON.stringify(before.value) !== JSON.stringify(value)) this.changed.next({ id: host.spec.id, value, pushed });
  }
}

function refreshName(policy: RefreshPolicy): string {
  switch (policy.kind) {
    case 'interval':
      return `Interval(${policy.everyMs % 1000 === 0 ? `${policy.everyMs / 1000}s` : `${policy.everyMs}ms`})`;
    case 'on_demand':
      return 'OnDemand';
    default:
      return policy.kind.charAt(0).toUpperCase() + policy.kind.slice(1);
  }
}

function stateName(snap: { matches(state: 'idle' | 'resolving' | 'ready' | 'failed'): boolean }): string {
  for (const s of ['idle', 'resolving', 'ready', 'failed'] as const) if (snap.matches(s)) return s;
  return 'idle';
}
