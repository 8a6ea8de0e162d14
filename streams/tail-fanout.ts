import { Subject } from 'rxjs';
import type { Subscription } from 'rxjs';
import Type from 'typebox';
import { TAIL_LEVELS } from '../protocol/index.js';
import type { TailLevel } from '../protocol/index.js';
import type { CommittedResult } from './batch-processor.js';
import type { ResultHead } from './detect/detect-batch.js';
import type { StageContext } from './stage-context.js';

export const kind = 'tail';

export const configSchema = Type.Object({
  max_sessions: Type.Integer({ minimum: 1, default: 2 }),
  /** Lines each session holds while its client is slow. */
  buffer_events: Type.Integer({ minimum: 1, default: 8_192 }),
});
export type TailConfig = Type.Static<typeof configSchema>;

/** One tail session's request (the HTTP layer's `TailRequest`, parsed). */
export interface TailRequest {
  readonly durationMs?: number;
  readonly limit?: number;
  readonly level?: TailLevel;
  /** Lower-cased substring of rule title or id. */
  readonly rule?: string;
}

/** Where a session writes (the HTTP layer's live response). */
export interface TailSink {
  /** Offer one line; false when it was dropped. */
  push(line: string): boolean;
  end(summaryLine: string): void;
  readonly closed: boolean;
}

export type TailOpen = { readonly ok: true; close(): void } | { readonly ok: false; readonly reason: 'capacity' };

export interface TailFanout {
  readonly bufferEvents: number;
  open(request: TailRequest, sink: TailSink): TailOpen;
  /** Offer committed results to every session (never waits; full sessions drop and count). */
  publish(results: readonly CommittedResult[]): void;
  /** End every session (shutdown). */
  closeAll(): void;
}

function levelRank(level: string | null | undefined): number {
  return level === undefined || level === null ? -1 : (TAIL_LEVELS as readonly string[]).indexOf(level);
}

function admits(request: TailRequest, r: ResultHead): boolean {
  if (request.level !== undefined) {
    const rank = levelRank(r.level);
    if (rank < 0 || rank < levelRank(request.level)) return false;
  }
  if (request.rule !== undefined) {
    const title = r.rule_title.toLowerCase();
    const id = r.rule_id?.toLowerCase() ?? '';
    if (!title.includes(request.rule) && !id.includes(request.rule)) return false;
  }
  return true;
}

/**
 * The live detection tail: committed results fan out through a Subject to each session, filtered at
 * capture time. Lossy by design: a session whose buffer is full drops (and counts) instead of
 * slowing the engine.
 */
export function create(config: TailConfig, ctx: StageContext): TailFanout {
  const results$ = new Subject<CommittedResult>();
  const sessions = new Set<() => void>();
  const m = ctx.metrics;
  return {
    bufferEvents: config.buffer_events,
    open(request: TailRequest, sink: TailSink): TailOpen {
      if (sessions.size >= config.max_sessions) return { ok: false, reason: 'capacity' } as const;
      let streamed = 0;
      let dropped = 0;
      let finished = false;
      let sub: Subscription | undefined;
      let cancelTimer: (() => void) | undefined;
      const finish = (): void => {
        if (finished) return;
        finished = true;
        sub?.unsubscribe();
        cancelTimer?.();
        sessions.delete(finish);
        m.svc_tail_active_sessions.dec();
        m.svc_tail_detections_dropped_total.inc(dropped);
        if (!sink.closed) sink.end(JSON.stringify({ svc_tail_summary: { streamed, dropped } }));
      };
      sessions.add(finish);
      m.svc_tail_active_sessions.inc();
      if (request.limit === 0) {
        finish();
        return { ok: true, close: finish } as const;
      }
      sub = results$.subscribe((r) => {
        if (!admits(request, r.head)) return;
        if (sink.push(r.text)) streamed++;
        else dropped++;
        if (request.limit !== undefined && streamed >= request.limit) finish();
      });
      if (request.durationMs !== undefined) cancelTimer = ctx.clock.setTimer(finish, request.durationMs);
      return { ok: true, close: finish } as const;
    },
    publish(results) {
      if (sessions.size === 0) return;
      for (const r of results) results$.next(r);
    },
    closeAll() {
      for (const finish of [...sessions]) finish();
    },
  };
}
