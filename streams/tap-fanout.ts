import { randomBytes } from 'node:crypto';
import Type from 'typebox';
import { ByteLines } from '../protocol/index.js';
import type { JsonEvent, LinesPiece, LiveSink, LiveStream, TapRequest, UnitLines } from '../protocol/index.js';
import type { StageContext } from './stage-context.js';
import { createTokenizer, pathUnion, redactedText, redactorWith, renderRedacted } from './tap-redaction.js';
import type { RedactedText } from './tap-redaction.js';

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
  /**
   * The event a line that parses as JSON decodes to, when the format decodes such a line from its parsed
   * value (json, evtx-json, auto); undefined: `decode` the line. Spares a second parse of a line the raw
   * sessions parse too, and gives both the same value to share redacted text for.
   */
  readonly decodeJson?: (value: unknown) => JsonEvent | undefined;
  /** A session's salt (16 random bytes; injected by tests). */
  readonly salt?: () => Uint8Array;
}

export interface TapFanout extends LiveStream<TapRequest> {
  /**
   * Offer a batch's input lines to every session (never waits; full sessions drop and count). Lines kept as
   * bytes stay bytes until a session builds them.
   */
  publish(lines: UnitLines): void;
  /** A session is open: only then is a batch worth offering. */
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
 * or drops them), each made a string, decoded, parsed or serialised at most once for all the sessions
 * that need it, and only when one of them builds it. Lines that came as bytes (an HTTP body's) are kept
 * as those bytes: a batch queued behind stalled clients holds no string of its own for the collector to
 * promote while it waits, and a batch no session has room for is never decoded at all.
 */
class TapBatch {
  /** Its lines as bytes (never blank), or as strings with the blank ones left out. */
  private readonly source: ByteLines | string[];
  private readonly textAt: (string | undefined)[];
  private readonly decodedAt: (JsonEvent | null | undefined)[];
  private readonly decodedTextAt: (string | null | undefined)[];
  private readonly parsedAt: unknown[];
  /** Redacted texts shared by the sessions redacting the same paths, by source ('p' parsed, 'd' decoded) and paths. */
  private readonly redactedAt = new Map<string, (RedactedText | null | undefined)[]>();

  constructor(
    lines: UnitLines,
    private readonly deps: TapDeps,
  ) {
    this.source = lines instanceof ByteLines ? lines : lines.filter((line) => !isBlank(line));
    this.textAt = new Array<string | undefined>(this.length);
    this.decodedAt = new Array<JsonEvent | null | undefined>(this.length);
    this.decodedTextAt = new Array<string | null | undefined>(this.length);
    this.parsedAt = new Array<unknown>(this.length);
  }

  get length(): number {
    return this.source.length;
  }

  /** Line `i` as received. */
  line(i: number): string {
    const source = this.source;
    if (!(source instanceof ByteLines)) return source[i] as string;
    let text = this.textAt[i];
    if (text === undefined) text = this.textAt[i] = source.text(i);
    return text;
  }

  /** The line as the engine decodes it; undefined when it does not decode. */
  decoded(i: number): JsonEvent | undefined {
    let event = this.decodedAt[i];
    if (event === undefined) {
      const parsed = this.deps.decodeJson === undefined ? UNPARSEABLE : this.parsed(i);
      const fromParsed = parsed === UNPARSEABLE ? undefined : this.deps.decodeJson?.(parsed);
      event = this.decodedAt[i] = fromParsed ?? this.deps.decode(this.line(i)) ?? null;
    }
    return event ?? undefined;
  }

  /**
   * `source` (line `i` parsed or decoded) redacted at `paths` for any salt (`pathsKey` names them), built
   * once for every session that redacts them; undefined when it cannot be shared (see `redactedText`).
   */
  redacted(i: number, source: unknown, paths: readonly string[], pathsKey: string): RedactedText | undefined {
    const key = (source === this.parsedAt[i] ? 'p' : 'd') + pathsKey;
    let texts = this.redactedAt.get(key);
    if (texts === undefined) this.redactedAt.set(key, (texts = new Array<RedactedText | null | undefined>(this.length)));
    let text = texts[i];
    if (text === undefined) text = texts[i] = redactedText(paths, source) ?? null;
    return text ?? undefined;
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
        parsed = JSON.parse(this.line(i)) as unknown;
      } catch {
        parsed = UNPARSEABLE;
      }
      this.parsedAt[i] = parsed;
    }
    return parsed;
  }
}

/** How a redacting session builds its lines (see `replan`). */
interface SessionRedaction {
  readonly paths: readonly string[];
  /** Its path list, as the key of the texts shared by sessions with the same list. */
  readonly listKey: string;
  readonly joinsUnion: boolean;
  /** The shared text it takes its lines from, if any: redacted at `paths`, of which it redacts `redacts` (all when absent). */
  share: { readonly paths: readonly string[]; readonly key: string; readonly redacts?: readonly boolean[] } | undefined;
  line(batch: TapBatch, i: number, source: unknown): string;
  release(): void;
}

interface TapSession {
  /** Offer a batch's lines (never waits; what does not fit is dropped and counted). */
  offer(batch: TapBatch): void;
  finish(): void;
}

/**
 * The live event tap (daemon-semantics §14.1): each batch's input lines (`raw`) or decoded events
 * (`decoded`) fan out to the sessions, redacted per session. Each session is offered a batch whole,
 * its buffer counting the batch's lines in one step. Lossy by design: a session whose
 * buffer is full drops (and counts) the batch without a line of it being decoded or serialised, and
 * lines are built (decoded, redacted, serialised) only when their session writes them to the client.
 * Each line is parsed, decoded and serialised unredacted at most once for all sessions, and redacted
 * and serialised once for all the sessions redacting the same paths (each then puts its own salted
 * tokens in), so a client that reads nothing costs the engine one line's serialisation per line its
 * socket's buffers take (kept small until the client reads: http/send-buffer.ts), plus one write's
 * piece (http/ndjson-stream.ts).
 */
export function create(config: TapConfig, ctx: StageContext, deps: TapDeps): TapFanout {
  const sessions = new Set<TapSession>();
  const m = ctx.metrics;
  const salt = deps.salt ?? (() => randomBytes(16));
  const redactions = new Set<SessionRedaction>();
  /**
   * Which redacting sessions share redacted text, decided when one opens or ends: those whose paths
   * cannot land inside one another's share one text redacted at all their paths (each puts its tokens in
   * the slots of its own paths); the others share one per identical path list; a session alone redacts
   * for itself.
   */
  const replan = (): void => {
    const joining = [...redactions].filter((r) => r.joinsUnion);
    const union = joining.length > 1 ? pathUnion(joining.map((r) => r.paths)) : undefined;
    const byList = new Map<string, number>();
    for (const r of redactions) byList.set(r.listKey, (byList.get(r.listKey) ?? 0) + 1);
    for (const r of redactions) {
      if (union !== undefined && r.joinsUnion) r.share = { paths: union, key: 'u' + JSON.stringify(union), redacts: union.map((p) => r.paths.includes(p)) };
      else r.share = (byList.get(r.listKey) ?? 0) > 1 ? { paths: r.paths, key: r.listKey } : undefined;
    }
  };
  /**
   * A session's redaction of `paths` under its salt: its lines from the redacted text it shares with
   * other sessions (the same bytes as its own redaction), else, or when a text cannot be shared, its own.
   */
  const sessionRedaction = (paths: readonly string[], sessionSalt: Uint8Array): SessionRedaction => {
    const tokenOf = createTokenizer(sessionSalt);
    const redact = redactorWith(paths, sessionSalt, tokenOf);
    const r: SessionRedaction = {
      paths,
      listKey: 'l' + JSON.stringify(paths),
      // A path given twice redacts its own token: such a list keeps to texts of its own list.
      joinsUnion: new Set(paths).size === paths.length,
      share: undefined,
      line(batch, i, source) {
        const share = r.share;
        const text = share === undefined ? undefined : batch.redacted(i, source, share.paths, share.key);
        return text === undefined ? JSON.stringify(redact(source)) : renderRedacted(text, tokenOf, share?.redacts);
      },
      release() {
        redactions.delete(r);
        replan();
      },
    };
    redactions.add(r);
    replan();
    return r;
  };
  return {
    maxDurationMs: config.max_duration_ms,
    bufferEvents: config.buffer_events,
    open(request: TapRequest, sink: LiveSink) {
      if (sessions.size >= config.max_sessions) return { ok: false, reason: 'capacity' } as const;
      const startedAt = ctx.clock.now();
      const redaction = request.redact.length > 0 ? sessionRedaction(request.redact, salt()) : undefined;
      let captured = 0;
      let dropped = 0;
      let finished = false;
      let cancelTimer: (() => void) | undefined;
      /** Line `i` of `batch` as this session sends it; undefined: nothing to send (dropped when counted). */
      const lineOf = (batch: TapBatch, i: number): string | undefined => {
        if (request.stage === 'raw') {
          if (redaction === undefined) return batch.line(i);
          const parsed = batch.parsed(i);
          if (parsed !== UNPARSEABLE) return redaction.line(batch, i, parsed);
          dropped++;
          return undefined;
        }
        if (redaction === undefined) return batch.decodedText(i);
        const event = batch.decoded(i);
        return event === undefined ? undefined : redaction.line(batch, i, event);
      };
      /** Lines `from` to `to` of `batch` up to `budget` characters, built when the sink writes them: lines queued behind a stalled client are never built. */
      const build = (batch: TapBatch, from: number, to: number, budget: number): LinesPiece => {
        let text = '';
        let streamed = 0;
        let i = from;
        while (i < to && !finished && text.length < budget) {
          const line = lineOf(batch, i++);
          if (line === undefined) continue;
          text += line + '\n';
          streamed++;
          captured++;
          if (request.limit !== undefined && captured >= request.limit) session.finish();
        }
        m.svc_tap_events_streamed_total.inc(streamed);
        return { text, end: finished ? to : i };
      };
      const session: TapSession = {
        offer(batch: TapBatch): void {
          const offered = batch.length;
          if (offered === 0) return;
          dropped += offered - sink.pushLines(offered, (from, to, budget) => build(batch, from, to, budget));
        },
        finish(): void {
          if (finished) return;
          finished = true;
          cancelTimer?.();
          sessions.delete(session);
          redaction?.release();
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
      const batch = new TapBatch(lines, deps);
      for (const s of sessions) s.offer(batch);
    },
    closeAll() {
      for (const s of [...sessions]) s.finish();
    },
  };
}
