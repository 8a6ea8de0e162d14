// The daemon's enrichment stage (`daemon.enrichers`, daemon-semantics §7): built before the data path
// (a bad file exits 3), re-read on every reload (a bad file keeps the set in force and counts
// `svc_reloads_failed_total`). One egress-filtered client and one extract compiler serve every set.
import { resolve } from 'node:path';
import type { Logger } from 'pino';
import type { EgressPolicy } from '../protocol/index.js';
import { createEgressAgent, createExtractCompiler, EnrichStage } from '../streams/index.js';
import type { EnricherBuildDeps, SourceLookup, StageContext } from '../streams/index.js';
import { reloadConfig } from './config-reload.js';
import { readEnrichers } from './enricher-file.js';

export interface DaemonEnrichment {
  readonly stage: EnrichStage;
  /** The enrichers file, for the reload watcher. */
  readonly watched: readonly string[];
  /** Re-reads the file; false when it no longer loads (the set in force stays). */
  reload(): Promise<boolean>;
  close(): Promise<void>;
}

export interface DaemonEnrichmentDeps {
  readonly ctx: StageContext;
  readonly policy: EgressPolicy;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The dynamic-source cache, once dynamic sources exist; `lookup` enrichers do not load without it. */
  readonly sources?: SourceLookup;
}

/** Undefined without `daemon.enrichers`. Throws AlertConfigError naming file, entry and key. */
export async function createDaemonEnrichment(path: string | undefined, deps: DaemonEnrichmentDeps): Promise<DaemonEnrichment | undefined> {
  if (path === undefined) return undefined;
  const { ctx } = deps;
  const log: Logger = ctx.log.child({ component: 'enrich' });
  const dispatcher = createEgressAgent({ policy: deps.policy });
  const build: EnricherBuildDeps = {
    env: deps.env,
    extract: createExtractCompiler(),
    dispatcher,
    clock: ctx.clock,
    metrics: ctx.metrics,
    ...(deps.sources !== undefined ? { sources: deps.sources } : {}),
  };
  const stage = new EnrichStage(ctx);
  try {
    stage.load(await readEnrichers(path, build));
  } catch (error) {
    await dispatcher.close();
    throw error;
  }
  log.info({ enrichers: stage.size }, 'enrichers loaded');
  return {
    stage,
    watched: [resolve(path)],
    reload: () =>
      reloadConfig(() => readEnrichers(path, build), 'enrichers', ctx.metrics, log, async (set) => {
        stage.load(set);
        return { enrichers: stage.size };
      }),
    close: () => dispatcher.close(),
  };
}
