// The alert pipeline in the daemon (issue 13): its file, its journaled stage, the 1 s tick scheduler,
// the silences and incidents the API serves. Wired into `daemon.ts` with a few calls.
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import type { Logger } from 'pino';
import { incidentRecord, silenceState } from '../actors/index.js';
import type { AlertResult, Silence as StoredSilence } from '../actors/index.js';
import type { IncidentApi, SilenceStore } from '../http/index.js';
import type { AlertPipelineFile } from '../protocol/index.js';
import type { Silence } from '../protocol/index.js';
import type { MetricHandles } from '../protocol/index.js';
import type { AnyJournaledKind, CrashHook } from '../state/index.js';
import { AlertStage, metricsObserver, unixSeconds } from '../streams/index.js';
import type { BatchProcessor, Clock, CommittedResult, EventPipeline, JournalBuffer } from '../streams/index.js';
import { stageTicks } from './stage-ticks.js';
import { readAlertPipeline } from './alert-pipeline-file.js';
import { reloadConfig } from './config-reload.js';
import { renderBundle } from './incident-bundle.js';
import type { BundleRisk, BundleRules } from './incident-bundle.js';

/** Tick period of §6 (wall clock, ms). */

export interface DaemonAlertsDeps {
  /** `daemon.alert_pipeline`, if any. */
  readonly path: string | undefined;
  readonly journal: JournalBuffer;
  readonly metrics: MetricHandles;
  readonly clock: Clock;
  readonly log: Logger;
  readonly crash: CrashHook;
  /**
   * The audit trail is on: a silence change leaves its journal records to the audit record of its
   * request, which commits them in its own transaction before the route answers (issue 18).
   */
  readonly auditCommits?: boolean;
}

/** What the data path gives the alert pipeline once it runs. */
interface AlertDataPath {
  readonly pipeline: EventPipeline;
  readonly processor: BatchProcessor;
  /** Hands committed tick emissions to the sinks (not the tail: they are not results of an item, §6). */
  readonly deliver: (results: readonly CommittedResult[], firstOseq: number) => void;
  readonly rules: BundleRules;
  /** The risk layer's open entities for the bundle's `risk` join (undefined while it accumulates nothing). */
  readonly risk?: BundleRisk;
}

export interface DaemonAlerts {
  readonly stage: AlertStage;
  readonly kind: AnyJournaledKind;
  /** Files to watch for reloads. */
  readonly watched: readonly string[];
  /** After recovery: puts the configured pipeline in force (journaled with the first commit) and starts ticking. */
  start(path: AlertDataPath): void;
  /** Re-reads the file; a bad one keeps the old pipeline and counts `svc_reloads_failed_total`. */
  reload(): Promise<boolean>;
  stop(): void;
  readonly silences: SilenceStore;
  readonly incidents: IncidentApi & { list(): readonly AlertResult[] };
}

/** Reads the configured file for start-up; a bad one throws AlertConfigError (exit 3). */
export async function readConfiguredPipeline(path: string | undefined): Promise<AlertPipelineFile | undefined> {
  return path === undefined ? undefined : readAlertPipeline(path);
}

/** RFC 3339 in the `+00:00` form of §9.7. */
function rfc3339(seconds: number | undefined): string | undefined {
  return seconds === undefined ? undefined : new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, '+00:00');
}

export function silenceView(s: StoredSilence, now: number): Silence {
  const starts = rfc3339(s.starts_at);
  const ends = rfc3339(s.ends_at);
  return {
    id: s.id,
    matchers: s.matchers.map((m) => ({ selector: m.selector, op: m.op ?? '=', value: m.value })),
    ...(starts !== undefined ? { starts_at: starts } : {}),
    ...(ends !== undefined ? { ends_at: ends } : {}),
    ...(s.created_by !== undefined ? { created_by: s.created_by } : {}),
    ...(s.comment !== undefined ? { comment: s.comment } : {}),
    origin: s.origin,
    state: silenceState(s, now),
  };
}

export function createDaemonAlerts(initial: AlertPipelineFile | undefined, deps: DaemonAlertsDeps): DaemonAlerts {
  const { journal, metrics, clock, crash } = deps;
  const log = deps.log.child({ component: 'alerts' });
  const stage = new AlertStage(journal, metricsObserver(metrics), metrics);
  let path: AlertDataPath | undefined;

  /** Runs `fn` between batches with the journal stamped now, then commits what it journaled (and emitted). */
  const exclusive = <T>(fn: (now: number) => { value: T; emitted?: readonly CommittedResult[] }, audited = false): Promise<T> => {
    if (path === undefined) return Promise.reject(new Error('the alert pipeline is not started'));
    const { pipeline, processor, deliver } = path;
    return pipeline.exclusive(async () => {
      journal.at = clock.now();
      const { value, emitted = [] } = fn(unixSeconds(journal.at));
      if (audited && deps.auditCommits === true && emitted.length === 0) return value;
      const firstOseq = await processor.commitJournal(emitted);
      if (emitted.length > 0) {
        crash('after-tick-commit');
        deliver(emitted, firstOseq);
      }
      return value;
    });
  };

  const ticks = stageTicks(clock, () => exclusive((now) => ({ value: undefined, emitted: stage.tick(now) })), log, 'alert');

  const getIncident = (id: string): AlertResult | undefined => {
    const inc = stage.pipeline.incidents.incidents.get(id);
    return inc === undefined ? undefined : incidentRecord(inc, 'open', 'snapshot', stage.pipeline.config?.group?.include ?? 'refs');
  };

  return {
    stage,
    kind: stage.kind() as AnyJournaledKind,
    watched: deps.path === undefined ? [] : [resolve(deps.path)],
    start(p) {
      path = p;
      stage.load(initial);
      stage.gauges(unixSeconds(clock.now()));
      ticks.start();
    },
    async reload() {
      const at = deps.path;
      if (at === undefined || path === undefined) return true;
      return reloadConfig(() => readAlertPipeline(at), 'alert pipeline', metrics, log, async (file) => {
        await exclusive(() => ({ value: stage.load(file) }));
      });
    },
    stop() {
      ticks.stop();
    },
    silences: {
      list: () => {
        const now = unixSeconds(clock.now());
        return stage.pipeline.silences.all().map((s) => silenceView(s, now));
      },
      create: (body) =>
        exclusive(() => {
          const r = stage.createSilence(body, randomUUID());
          return { value: r.ok ? { ok: true as const, id: r.silence.id } : r.reason === 'invalid' ? { ok: false as const, reason: 'invalid' as const, detail: r.detail } : { ok: false as const, reason: 'limit_reached' as const } };
        }, true),
      remove: (id) => exclusive(() => ({ value: stage.deleteSilence(id) }), true),
    },
    incidents: {
      grouping: () => stage.pipeline.config?.group !== undefined,
      list: () => stage.pipeline.incidentSnapshots(),
      get: getIncident,
      bundle: (id, format) => {
        const incident = getIncident(id);
        if (incident === undefined || path === undefined) return undefined;
        return renderBundle(incident, path.rules, format, new Date(clock.now()), path.risk);
      },
    },
  };
}
