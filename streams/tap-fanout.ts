import { randomBytes } from 'node:crypto';
import Type from 'typebox';
import type { JsonEvent, LiveSink, LiveStream, TapRequest } from '../protocol/index.js';
import type { StageContext } from './stage-context.js';
import { createRedactor } from './tap-redaction.js';
import type { Redactor } from './tap-redaction.js';

export const kind = 'tap';

export const configSchema = Type.Object({
  max_sessions: Type.Integer({ minimum: 1, default: 2 }),
  /** Largest `?duration`, ms (`daemon.tap.max_duration`). */
  max_duration_ms: Type.Integer({ minimum: 1, default: 300_000 }),
  /** Lines a session holds while its client is slow; beyond them it drops and counts. */
  buffer_events: Type.Integer({ minimum: 1, default: 8_192 }),
});
export type TapConfig = Type.Static<typeof configSchema>;

export interface TapDeps {
  /** Decodes a line as the engine does (`--input-format`); undefined when it does not decode. */
  readonly decode: (line: string) => JsonEvent | undefined;
  /** A session's salt (16 random bytes; injected by tests). */
  readonly salt?: () => Uint8Array;
}

export interface TapFanout extends LiveStream<TapRequest> {
  /** Offer a batch's input lines to every session (never waits; full sessions drop and count). */
  publish(lines: readonly string[]): void;
  /** End every session (shutdown). */
  closeAll(): void;
}

/** One line as a session sends it, or undefined when it must be dropped (raw and not JSON while redacting). */
function rawLine(line: string, redact: Redactor | undefined): string | undefined {
  if (redact === undefined) return line;
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return undefined;
  }
  return JSON.stringify(redact(parsed));
}

interface TapSession {
  /** True while a line offered now would be dropped. */
  readonly full: boolean;
  offer(line: string, decoded: () => JsonEvent | undefined): void;
  /** `n` lines dropped unseen (offered while the session was full). */
  drop(n: number): void;
  finish(): void;
}

/** Blank lines are not events: no session sees or drops them. */
function blanks(lines: readonly string[]): number {
  let n = 0;
  for (const line of lines) if (line.trim() === '') n++;
  return n;
}

/**
 * The live event tap (daemon-semantics §14.1): each batch's input lines (`raw`) or decoded events
 * (`decoded`) fan out to the sessions, redacted per session. Lossy by design: a session whose buffer
 * is full drops (and counts) without the line being decoded or serialised, and a line is built
 * (decoded, redacted, serialised) only when its session writes it to the client, so a client that
 * reads nothing costs the engine next to nothing, also while its buffer fills.
 */
export function create(config: TapConfig, ctx: StageContext, deps: TapDeps): TapFanout {
  const sessions = new Set<TapSession>();
  const m = ctx.metrics;
  const salt = deps.salt ?? (() => randomBytes(16));
  /** Sessions with room for the batch being published (reused between batches). */
  const open: TapSession[] = [];
  return {
    maxDurationMs: config.max_duration_ms,
    bufferEvents: config.buffer_events,
    open(request: TapRequest, sink: LiveSink) {
      if (sessions.size >= config.max_sessions) return { ok: false, reason: 'capacity' } as const;
      const startedAt = ctx.clock.now();
      const redact = request.redact.length > 0 ? createRedactor(request.redact, salt()) : undefined;
      let captured = 0;
      let dropped = 0;
      let finished = false;
      let cancelTimer: (() => void) | undefined;
      const session: TapSession = {
        get full() {
          return sink.full;
        },
        offer(line: string, decoded: () => JsonEvent | undefined): void {
          if (sink.full) {
            dropped++;
            return;
          }
          // Built when the sink writes it: lines queued behind a stalled client are never built.
          const build = (): string | undefined => {
            if (finished) return undefined;
            let text: string | undefined;
            if (request.stage === 'raw') {
              text = rawLine(line, redact);
              if (text === undefined) {
                dropped++;
                return undefined;
              }
            } else {
              const event = decoded();
              if (event === undefined) return undefined;
              text = JSON.stringify(redact === undefined ? event : redact(event));
            }
            captured++;
            m.svc_tap_events_streamed_total.inc();
            if (request.limit !== undefined && captured >= request.limit) session.finish();
            return text;
          };
          if (!sink.push(build)) dropped++;
        },
        drop(n: number): void {
          if (!finished) dropped += n;
        },
        finish(): void {
          if (finished) return;
          finished = true;
          cancelTimer?.();
          sessions.delete(session);
          m.svc_tap_active_sessions.dec();
          m.svc_tap_events_dropped_total.inc(dropped);
          const summary = { captured, dropped, duration_ms: ctx.clock.now() - startedAt, stage: request.stage };
          if (!sink.closed) sink.end(JSON.stringify({ svc_tap_summary: summary }));
        },
      };
      sessions.add(session);
      m.svc_tap_sessions_total.inc();
      m.svc_tap_active_sessions.inc();
      if (request.limit === 0) session.finish();
      else cancelTimer = ctx.clock.setTimer(() => session.finish(), request.durationMs);
      return { ok: true, close: () => session.finish() } as const;
    },
    publish(lines) {
      if (sessions.size === 0) return;
      // A full session costs one check per batch: nothing drains it while this loop runs, so every
      // line of the batch is dropped for it, counted at once. The others see each line; one that
      // fills up meanwhile leaves the loop and counts the rest the same way.
      open.length = 0;
      let blank = -1;
      for (const s of sessions) {
        if (!s.full) open.push(s);
        else s.drop(lines.length - (blank === -1 ? (blank = blanks(lines)) : blank));
      }
      let seen = 0;
      for (let i = 0; i < lines.length && open.length > 0; i++) {
        const line = lines[i] as string;
        if (line.trim() === '') continue;
        seen++;
        // Decoded once per line, and only when a decoded session has room for it.
        let event: JsonEvent | undefined | null = null;
        const decoded = (): JsonEvent | undefined => (event === null ? (event = deps.decode(line)) : event);
        for (let k = 0; k < open.length; k++) {
          const s = open[k] as TapSession;
          s.offer(line, decoded);
          if (!s.full) continue;
          open.splice(k--, 1);
          s.drop(lines.length - (blank === -1 ? (blank = blanks(lines)) : blank) - seen);
        }
      }
      open.length = 0;
    },
    closeAll() {
      for (const s of [...sessions]) s.finish();
    },
  };
}
