// The risk layer in the daemon (issue 14): its file, its journaled stage, the 1 s tick that expires
// windows, the entities `GET /api/v1/risk` lists. Wired into `daemon.ts` with a few calls.
import { resolve } from 'node:path';
import type { Logger } from 'pino';
import type { RiskEntityView } from '../actors/index.js';
import type { MetricHandles, RiskFile } from '../protocol/index.js';
import type { AnyJournaledKind } from '../state/index.js';
import { RiskStage, riskMetricsObserver, unixSeconds } from '../streams/index.js';
import type { BatchProcessor, Clock, EventPipeline, JournalBuffer } from '../streams/index.js';
import { reloadConfig } from './config-reload.js';
import { readRiskFile } from './risk-file.js';
import { stageTicks } from './stage-ticks.js';

/** Tick period of §6 (wall clock, ms). */

export interface DaemonRiskDeps {
  /** `daemon.risk`, if any. */
  readonly path: string | undefined;
  readonly journal: JournalBuffer;
  readonly metrics: MetricHandles;
  readonly clock: Clock;
  readonly log: Logger;
}

export interface DaemonRisk {
  readonly stage: RiskStage;
  readonly kind: AnyJournaledKind;
  /** Files to watch for reloads. */
  readonly watched: readonly string[];
  /** After recovery: puts the configured file in force (journaled with the first commit) and starts ticking. */
  start(path: { readonly pipeline: EventPipeline; readonly processor: BatchProcessor }): void;
  /** Re-reads the file; a bad one keeps the old config and counts `svc_reloads_failed_total`. */
  reload(): Promise<boolean>;
  stop(): void;
  /** Open entities for `GET /api/v1/risk`. */
  entities(): readonly RiskEntityView[];
  /** Open entities for the incident bundle's `risk` join; undefined when no accumulator is configured. */
  joinable(): readonly RiskEntityView[] | undefined;
}

/** Reads the configured file for start-up; a bad one throws AlertConfigError (exit 3). */
export async function readConfiguredRisk(path: string | undefined): Promise<RiskFile | undefined> {
  return path === undefined ? undefined : readRiskFile(path);
}

export function createDaemonRisk(initial: RiskFile | undefined, deps: DaemonRiskDeps): DaemonRisk {
  const { journal, metrics, clock } = deps;
  const log = deps.log.child({ component: 'risk' });
  const stage = new RiskStage(journal, riskMetricsObserver(metrics), metrics);
  let path: { readonly pipeline: EventPipeline; readonly processor: BatchProcessor } | undefined;

  /** Runs `fn` between batches with the journal stamped now, then commits what it journaled. */
  const exclusive = (fn: (now: number) => void): Promise<void> => {
    if (path === undefined) return Promise.reject(new Error('the risk layer is not started'));
    const { pipeline, processor } = path;
    return pipeline.exclusive(async () => {
      journal.at = clock.now();
      fn(unixSeconds(journal.at));
      await processor.commitJournal();
    });
  };

  const ticks = stageTicks(clock, () => exclusive((now) => stage.tick(now)), log, 'risk');

  return {
    stage,
    kind: stage.kind() as AnyJournaledKind,
    watched: deps.path === undefined ? [] : [resolve(deps.path)],
    start(p) {
      path = p;
      stage.load(initial);
      stage.gauges();
      if (initial !== undefined) ticks.start();
    },
    async reload() {
      const at = deps.path;
      if (at === undefined || path === undefined) return true;
      return reloadConfig(() => readRiskFile(at), 'risk config', metrics, log, async (file) => {
        await exclusive(() => stage.load(file));
        stage.gauges();
        return { incident: file.incident !== undefined };
      });
    },
    stop() {
      ticks.stop();
    },
    entities: () => stage.layer.entities(unixSeconds(clock.now())),
    joinable: () => (stage.layer.config?.incident === undefined ? undefined : stage.layer.entities(unixSeconds(clock.now()))),
  };
}
