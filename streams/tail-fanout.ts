import Type from 'typebox';
import { TAIL_LEVELS } from '../protocol/index.js';
import type { LinesPiece, LiveSink, TailLevel } from '../protocol/index.js';
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
export type TailSink = Pick<LiveSink, 'pushLines' | 'end' | 'closed'>;

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

/** The texts of results `from` to `to`, one per line, up to `budget` characters. */
function resultLines(results: readonly CommittedResult[], from: number, to: number, budget: number): LinesPiece {
  let text = '';
  let i = from;
  while (i < to && text.length < budget) text += (results[i++] as CommittedResult).text + '\n';
  return { text, end: i };
}

/**
 * The live detection tail: each commit's results fan out to the sessions, filtered at capture time.
 * A session is offered its share of a commit whole, its buffer counting the share in one step, the
 * lines joined only when they are written. Lossy by design: a session whose buffer is full drops (and
 * counts) the share at once instead of slowing the engine.
 */
export function create(config: TailConfig, ctx: StageContext): TailFanout {
  /** Each open session's offer of a commit's results. */
  const sessions = new Map<() => void, (results: readonly CommittedResult[]) => void>();
  const m = ctx.metrics;
  return {
    bufferEvents: config.buffer_events,
    open(request: TailRequest, sink: TailSink): TailOpen {
      if (sessions.size >= config.max_sessions) return { ok: false, reason: 'capacity' } as const;
      let streamed = 0;
      let dropped = 0;
      let finished = false;
      let cancelTimer: (() => void) | undefined;
      const finish = (): void => {
        if (finished) return;
        finished = true;
        cancelTimer?.();
        sessions.delete(finish);
        m.svc_tail_active_sessions.dec();
        m.svc_tail_detections_dropped_total.inc(dropped);
        if (!sink.closed) sink.end(JSON.stringify({ svc_tail_summary: { streamed, dropped } }));
      };
      const filtered = request.level !== undefined || request.rule !== undefined;
      const offer = (results: readonly CommittedResult[]): void => {
        const admitted = filtered ? results.filter((r) => admits(request, r.head)) : results;
        if (admitted.length === 0) return;
        // Past the limit the session has ended: what follows it is neither streamed nor dropped.
        const wanted = request.limit === undefined ? admitted.length : Math.min(admitted.length, request.limit - streamed);
        const taken = sink.pushLines(wanted, (from, to, budget) => resultLines(admitted, from, to, budget));
        streamed += taken;
        if (request.limit !== undefined && streamed >= request.limit) finish();
        else dropped += admitted.length - taken;
      };
      sessions.set(finish, offer);
      m.svc_tail_active_sessions.inc();
      if (request.limit === 0) {
        finish();
        return { ok: true, close: finish } as const;
      }
      if (request.durationMs !== undefined) cancelTimer = ctx.clock.setTimer(finish, request.durationMs);
      return { ok: true, close: finish } as const;
    },
    publish(results) {
      if (sessions.size === 0 || results.length === 0) return;
      for (const offer of sessions.values()) offer(results);
    },
    closeAll() {
      for (const finish of [...sessions.keys()]) finish();
    },
  };
}
