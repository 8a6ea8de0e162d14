// The control-plane audit trail of a running daemon (daemon-semantics §18.6, issue 18): audited
// requests commit their record through `AuditTrail` together with the control journal records
// pending at that moment, pruned by age and count at start-up and every snapshot interval, and
// copied as JSON lines to the optional audit sink.
import { appendFile } from 'node:fs/promises';
import type { Logger } from 'pino';
import type { AuditLog } from '../http/index.js';
import type { DaemonConfig } from '../protocol/index.js';
import { parseDuration } from '../protocol/index.js';
import type { MetricHandles } from '../protocol/index.js';
import { AuditTrail, type CrashHook, type StateStore } from '../state/index.js';
import type { Clock, EventPipeline, JournalBuffer } from '../streams/index.js';

export interface DaemonAuditParts {
  readonly settings: DaemonConfig['api']['audit'];
  readonly store: StateStore;
  /** Control calls push their journal records here; the audit commit takes them along. */
  readonly journal: JournalBuffer;
  readonly pipeline: EventPipeline;
  readonly clock: Clock;
  readonly metrics: MetricHandles;
  readonly log: Logger;
  readonly pruneEveryMs: number;
  readonly crash: CrashHook;
}

export interface DaemonAudit {
  readonly log: AuditLog;
  stop(): void;
}

export async function startDaemonAudit(p: DaemonAuditParts): Promise<DaemonAudit> {
  const trail = new AuditTrail(p.store);
  const log = p.log.child({ component: 'audit' });
  const sinkPath = p.settings.sink?.slice('file://'.length).split('?')[0];
  const retention = { maxAgeSeconds: (parseDuration(p.settings.max_age) ?? 0) / 1000, maxEntries: p.settings.max_entries };
  const prune = async (): Promise<void> => {
    const removed = await p.pipeline.exclusive(() => trail.prune(Math.floor(p.clock.now() / 1000), retention));
    if (removed > 0) log.info({ removed }, 'audit records pruned');
  };
  await prune();
  let cancel = p.clock.setTimer(function again() {
    void prune()
      .catch((error: unknown) => log.warn({ err: error }, 'audit pruning failed'))
      .finally(() => (cancel = p.clock.setTimer(again, p.pruneEveryMs)));
  }, p.pruneEveryMs);
  return {
    log: {
      maxBodyBytes: p.settings.max_body_bytes,
      async record(entry) {
        const audit = { ts: Math.floor(p.clock.now() / 1000), ...entry };
        let committed;
        try {
          committed = await p.pipeline.exclusive(() => {
            p.crash('before-audit-commit');
            return trail.commit({ records: p.journal.drafts.splice(0), audit });
          });
        } catch (error) {
          p.metrics.svc_audit_write_errors_total.inc();
          log.error({ err: error, endpoint: entry.endpoint }, 'audit record not committed');
          throw error;
        }
        p.crash('after-audit-commit');
        p.metrics.svc_audit_records_total.inc();
        // The sink is best effort (on_full=drop): a failed line is counted, never retried.
        if (sinkPath !== undefined) {
          appendFile(sinkPath, `${JSON.stringify(committed)}\n`).catch((error: unknown) => {
            p.metrics.svc_audit_write_errors_total.inc();
            log.warn({ err: error, sink: p.settings.sink }, 'audit sink write failed');
          });
        }
      },
      list: (query) => trail.list(query),
    },
    stop: () => cancel(),
  };
}
