// The triage feedback loop in the daemon (issue 14): its journaled store, the POST/GET routes'
// backend and the 60 s pruner. Wired into `daemon.ts` with a few calls.
import type { Logger } from 'pino';
import type { Dispositions } from '../http/index.js';
import { parseDuration } from '../protocol/index.js';
import type { DaemonConfig, MetricHandles } from '../protocol/index.js';
import type { AnyJournaledKind } from '../state/index.js';
import { DispositionStage, unixSeconds } from '../streams/index.js';
import type { BatchProcessor, Clock, EventPipeline, JournalBuffer } from '../streams/index.js';
import { settingName } from './config.js';
import type { DispositionPull } from './disposition-pull.js';

/** Pruner period of §10.1 (ms). */
const PRUNE_MS = 60_000;

export interface DaemonDispositionsDeps {
  readonly journal: JournalBuffer;
  readonly metrics: MetricHandles;
  readonly clock: Clock;
  readonly log: Logger;
  /** The rules of an open alert-pipeline incident (`rule_counts` keys), for incident-scoped records. */
  readonly incidentRules: (id: string) => readonly string[] | undefined;
  /** The audit trail commits the journal records of an audited request with its record (issue 18). */
  readonly auditCommits: boolean;
  /** The pull source of `daemon.dispositions.source` (§10.5). */
  readonly pull?: DispositionPull;
}

export interface DaemonDispositions {
  readonly kind: AnyJournaledKind;
  readonly api: Dispositions;
  start(path: { readonly pipeline: EventPipeline; readonly processor: BatchProcessor }): void;
  stop(): void;
}

/** Whether the loop runs (§10.1); a bad window exits 3 naming the key. Undefined when disabled. */
export function createDaemonDispositions(config: DaemonConfig['dispositions'], deps: DaemonDispositionsDeps): DaemonDispositions | undefined {
  if (!config.enabled && config.source === undefined) return undefined;
  const ms = parseDuration(config.window);
  if (ms === undefined || ms < 1000) throw new Error(`${settingName('dispositions.window')}: '${config.window}' is not a duration of a second or more`);
  const { journal, metrics, clock } = deps;
  const log = deps.log.child({ component: 'dispositions' });
  const stage = new DispositionStage({ windowSeconds: Math.floor(ms / 1000), numerator: config.numerator, minSample: config.min_sample }, journal, metrics);
  let path: { readonly pipeline: EventPipeline; readonly processor: BatchProcessor } | undefined;
  let cancel: (() => void) | undefined;
  let stopped = false;

  /** Runs `fn` between batches with the journal stamped now; commits its records unless the audit record will. */
  const exclusive = <T>(fn: (now: number) => T, audited: boolean): Promise<T> => {
    if (path === undefined) return Promise.reject(new Error('the disposition loop is not started'));
    const { pipeline, processor } = path;
    return pipeline.exclusive(async () => {
      journal.at = clock.now();
      const value = fn(unixSeconds(journal.at));
      if (!(audited && deps.auditCommits)) await processor.commitJournal();
      return value;
    });
  };

  const armPruner = (): void => {
    if (stopped) return;
    cancel = clock.setTimer(() => {
      void exclusive((now) => stage.prune(now), false)
        .catch((error: unknown) => log.error({ err: error }, 'disposition pruning failed'))
        .finally(armPruner);
    }, PRUNE_MS);
  };

  return {
    kind: stage.kind() as AnyJournaledKind,
    api: {
      ratios: () => stage.document(),
      ingest: (records) => exclusive((now) => stage.ingest(records, now, 'api', deps.incidentRules), true),
      parseFailed: () => metrics.svc_disposition_ingest_errors_total.inc({ reason: 'parse' }),
    },
    start(p) {
      path = p;
      armPruner();
      deps.pull?.start((records, source) => exclusive((now) => stage.ingest(records, now, source, deps.incidentRules), false));
    },
    stop() {
      stopped = true;
      cancel?.();
      void deps.pull?.stop();
    },
  };
}
