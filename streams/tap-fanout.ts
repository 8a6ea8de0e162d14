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
  /** A session is open: only then are a batch's lines worth making strings of for `publish`. */
  readonly active: boolean;
  /** End every session (shutdown). */
  closeAll(): void;
}

/** What a line that is not JSON parses to (a redacting raw session drops it). */
const UNPARSEABLE: unique symbol = Symbol('unparseable');

/** Whitespace only: a line that starts with a printable ASCII character (nearly every one) is decided without copying it. */
function isBlank(line: string): boolean {
  const first = line.charCodeAt(0);
  return !(first > 32 && first < 127) && line.trim() === '';
}

/**
 * One batch as the sessions see it: its non-blank lines (blank lines are not events: no session sees
 * or drops them), each decoded, parsed or serialised at most once for all the sessions that need it,
 * and only when one of them builds it.
 */
class TapBatch {
  readonly lines: string[] = [];
  private readonly decodedAt: (JsonEvent | null | undefined)[];
  private readonly decodedTextAt: (string | null | undefined)[];
  private readonly parsedAt: unknown[];

  constructor(
    lines: readonly string[],
    private readonly decode: (line: string) => JsonEvent | undefined,
  ) {
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i] as string;
      if (!isBlank(line)) this.lines.push(line);
    }
    this.decodedAt = new Array<JsonEvent | null | undefined>(this.lines.length);
    this.decodedTextAt = new Array<string | null | undefined>(this.lines.length);
    this.parsedAt = new Array<unknown>(this.lines.length);
  }

  /** The line as the engine decodes it; undefined when it does not decode. */
  decoded(i: number): JsonEvent | undefined {
    let event = this.decodedAt[i];
    if (event === undefined) event = this.decodedAt[i] = this.decode(this.lines[i] as string) ?? null;
    return event ?? undefined;
  }

  /** The decoded event as compact JSON (unredacted sessions share it). */
  decodedText(i: number): string | undefined {
    let text = this.decodedTextAt[i];
    if (text === undefined) {
      const event = this.decoded(i);
      text = this.decodedTextAt[i] = event === undefined ? null : JSON.stringify(event);
    }
    return text ?? undefined;
  }

  /** The raw line parsed as JSON, or UNPARSEABLE. */
  parsed(i: number): unknown {
    let parsed = this.parsedAt[i];
    if (parsed === undefined) {
      try {
        parsed = JSON.parse(this.lines[i] as string) as unknown;
      } catch {
        parsed = UNPARSEABLE;
      }
      this.parsedAt[i] = parsed;
    }
    return parsed;
  }
}

interface TapSession {
  /** Offer a batch's lines (never waits; what does not fit is dropped and counted). */
  offer(batch: TapBatch): void;
  finish(): void;
}

/**
 * The live event tap (daemon-semantics §14.1): each batch's input lines (`raw`) or decoded events
 * (`decoded`) fan out to the sessions, redacted per session. Each session gets a batch as one chunk
 * (one write), its buffer counting the batch's lines in one step. Lossy by design: a session whose
 * buffer is full drops (and counts) the batch without a line of it being decoded or serialised, and
 * lines are built (decoded, redacted, serialised) only when their session writes them to the client,
 * decoding and unredacted serialisation once per line for all sessions, so a client that reads
 * nothing costs the engine next to nothing, also while its buffer fills.
 */
export function create(config: TapConfig, ctx: StageContext, deps: TapDeps): TapFanout {
  const sessions = new Set<TapSession>();
  const m = ctx.metrics;
  const salt = deps.salt ?? (() => randomBytes(16));
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
      /** Line `i` of `batch` as this session sends it; undefined: nothing to send (dropped when counted). */
      const lineOf = (batch: TapBatch, i: number): string | undefined => {
        if (request.stage === 'raw') {
          if (redact === undefined) return batch.lines[i];
          const parsed = batch.parsed(i);
          if (parsed !== UNPARSEABLE) return JSON.stringify(redact(parsed));
          dropped++;
          return undefined;
        }
        if (redact === undefined) return batch.decodedText(i);
        const event = batch.decoded(i);
        return event === undefined ? undefined : JSON.stringify(redact(event));
      };
      /** The first `take` lines of `batch`, built when the sink writes them: lines queued behind a stalled client are never built. */
      const build = (batch: TapBatch, take: number): string => {
        let text = '';
        let streamed = 0;
        for (let i = 0; i < take && !finished; i++) {
          const line = lineOf(batch, i);
          if (line === undefined) continue;
          text += line + '\n';
          streamed++;
          captured++;
          if (request.limit !== undefined && captured >= request.limit) session.finish();
        }
        m.svc_tap_events_streamed_total.inc(streamed);
        return text;
      };
      const session: TapSession = {
        offer(batch: TapBatch): void {
          const offered = batch.lines.length;
          if (offered === 0) return;
          dropped += offered - sink.pushLines(offered, (take) => build(batch, take));
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
    get active() {
      return sessions.size > 0;
    },
    publish(lines) {
      if (sessions.size === 0) return;
      // One chunk per session per batch; a full session takes none of it (counted at once, nothing built).
      const batch = new TapBatch(lines, deps.decode);
      for (const s of sessions) s.offer(batch);
    },
    closeAll() {
      for (const s of [...sessions]) s.finish();
    },
  };
}
