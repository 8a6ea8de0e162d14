// The disposition pull source (daemon-semantics §10.5): the `--source` file format, run by a private
// scheduler without source metrics (egress policy still applies). Every new value of one of its
// sources is fed to the dispositions ingest with the source's type as the `source` label.
import type { Logger } from 'pino';
import type { DaemonConfig } from '../protocol/index.js';
import { SourceCache } from '../state/index.js';
import type { Clock } from '../streams/index.js';
import { createSourceScheduler, loadSourceSpecs } from './daemon-sources.js';

export interface DispositionPull {
  /** Resolves every source once, then follows their refresh policies; `ingest` gets each new value's records. */
  start(ingest: (records: readonly unknown[], source: string) => Promise<unknown>): void;
  stop(): Promise<void>;
}

/** The records a source value holds: an array's elements, an object, or none for null. */
function recordsOf(value: unknown): readonly unknown[] {
  if (value === null) return [];
  return Array.isArray(value) ? value : [value];
}

/** Undefined without `daemon.dispositions.source`; a bad source file throws (the daemon exits 3). */
export async function loadDispositionPull(config: DaemonConfig, deps: { readonly log: Logger; readonly clock: Clock }): Promise<DispositionPull | undefined> {
  const path = config.dispositions.source;
  if (path === undefined) return undefined;
  const log = deps.log.child({ component: 'disposition_source' });
  const specs = await loadSourceSpecs([path], [], log);
  if (specs.length === 0) log.warn({ path }, 'the disposition source file declares no sources');
  const cache = SourceCache.open(undefined);
  const scheduler = createSourceScheduler(specs, config, { log, clock: deps.clock, cache });
  const types = new Map(specs.map((s) => [s.id, s.target.type]));
  return {
    start(ingest) {
      scheduler.changes.subscribe(({ id, value }) => {
        void ingest(recordsOf(value), types.get(id) ?? 'file').catch((error: unknown) => log.error({ source: id, err: error }, 'disposition ingest failed'));
      });
      void scheduler.resolveAll().then(
        () => scheduler.start(),
        (error: unknown) => log.error({ err: error }, 'disposition sources did not start'),
      );
    },
    async stop() {
      await scheduler.stop();
      await cache.close();
    },
  };
}
