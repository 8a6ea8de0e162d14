import type { Counter, Gauge } from 'prom-client';
import { bindZeroed } from '../../protocol/index.js';
import { deliverOutboxOnce } from '../../state/index.js';
import type { CrashHook, StateStore, Utf8Lines } from '../../state/index.js';
import type { DlqWriter } from '../dlq-writer.js';
import { sleep } from '../stage-context.js';
import type { StageContext } from '../stage-context.js';

/** One output: where lines go, and how a full queue behaves. */
export interface SinkTarget {
  readonly name: string;
  readonly label: string;
  readonly onFull: 'block' | 'drop';
  start(): Promise<void>;
  write(text: string): Promise<void>;
  /** Writes lines given as their UTF-8 bytes (the same bytes `write` would write of their text); sinks without it get text. */
  writeBytes?(bytes: Uint8Array): Promise<void>;
  close(): Promise<void>;
  /** The lines this sink writes for native lines (`?format=ocsf`); called once per batch, before any retry. */
  formatLines?(texts: readonly string[]): readonly string[];
}

/** `target` writing `format(lines)` (after any format it already applies). */
export function withLineFormat(target: SinkTarget, format: (texts: readonly string[]) => readonly string[]): SinkTarget {
  const inner = target.formatLines?.bind(target);
  return {
    name: target.name,
    label: target.label,
    onFull: target.onFull,
    start: () => target.start(),
    write: (text) => target.write(text),
    close: () => target.close(),
    formatLines: (texts) => format(inner === undefined ? texts : inner(texts)),
  };
}

/** Indented JSON for `--pretty` (stdout only); a line that is not JSON stays as it is. */
export function prettyLines(texts: readonly string[]): readonly string[] {
  return texts.map((t) => {
    try {
      return JSON.stringify(JSON.parse(t), null, 2);
    } catch {
      return t;
    }
  });
}

export interface DeliveryOptions {
  /** Queue capacity (`--buffer-size`): outbox entries not yet delivered to this sink. */
  readonly capacity: number;
  readonly retryMax: number;
  readonly backoffBaseMs: number;
  readonly backoffMaxMs: number;
  /** Entries per write. */
  readonly batchMax: number;
}

/**
 * Queue depths of every sink: `svc_output_queue_depth` is their sum, and `svc_sink_queue_depth{sink}`
 * the sum over the sinks sharing a label (two `file` sinks share `file`, §4.1, as their counters do),
 * so no sink's depth overwrites another's.
 */
export class SinkQueueDepths {
  private readonly depths = new Map<SinkTarget, number>();
  constructor(
    private readonly total: Gauge,
    private readonly bySink: Gauge<'sink'>,
  ) {}

  /** Pre-registers the sink's label with zero (the family is pre-registered per sink). */
  add(sink: SinkTarget): void {
    this.depths.set(sink, 0);
    bindZeroed(this.bySink, { sink: sink.label });
  }

  set(sink: SinkTarget, depth: number): void {
    this.depths.set(sink, depth);
    let total = 0;
    let labelled = 0;
    for (const [s, d] of this.depths) {
      total += d;
      if (s.label === sink.label) labelled += d;
    }
    this.total.set(total);
    this.bySink.labels({ sink: sink.label }).set(labelled);
  }
}

/** A delivery error no retry can fix (a webhook's non-429 4xx): the entry goes to the DLQ at once (§4.3). */
export class PermanentDeliveryError extends Error {
  override readonly name = 'PermanentDeliveryError';
}

/** An outbox payload's NDJSON text: stored as text since it is serialised once; older stores hold the object. */
function payloadText(payload: unknown): string {
  return typeof payload === 'string' ? payload : JSON.stringify(payload);
}

/** Retry delay after failed attempt `attempt` (1-based): base·2^(attempt−1), capped (§4.3). */
export function backoffMs(attempt: number, base: number, max: number): number {
  return Math.min(max, base * 2 ** Math.min(20, attempt - 1));
}

/**
 * Delivers one sink from the outbox in order: the sink's queue is its backlog past its watermark.
 * A failed write is retried with exponential backoff; when retries run out the entries go to the
 * DLQ and the watermark moves on. `block` sinks hold the engine back when their backlog is full;
 * `drop` sinks skip the oldest backlog instead.
 */
export class SinkWorker {
  private wakeUp: (() => void) | undefined;
  /** A wake arrived since the loop last looked (so no wake is lost while a round runs). */
  private woken = false;
  private roomWaiters: (() => void)[] = [];
  private stopping = false;
  private readonly retries: Counter.Internal;
  private readonly dropped: Counter.Internal;
  private readonly failures: Counter.Internal;
  private running: Promise<void> | undefined;
  /** Texts of entries committed since start, by outbox sequence, so delivery need not read them back. */
  /** Results offered, kept as given: a sink that writes their bytes never reads their texts. */
  private readonly recent: { readonly first: number; readonly results: readonly { readonly text: string }[]; readonly encoded?: Utf8Lines }[] = [];
  private recentCount = 0;
  /** The sequence after the last offered entry (0 before any offer). */
  private offeredEnd = 0;

  constructor(
    readonly target: SinkTarget,
    private readonly store: StateStore,
    private readonly ctx: StageContext,
    private readonly options: DeliveryOptions,
    private readonly dlq: DlqWriter,
    private readonly crash: CrashHook,
    private readonly depths: SinkQueueDepths,
  ) {
    const labels = { sink: target.label };
    depths.add(target);
    this.retries = bindZeroed(ctx.metrics.svc_sink_retries_total, labels);
    this.dropped = bindZeroed(ctx.metrics.svc_sink_dropped_total, labels);
    this.failures = bindZeroed(ctx.metrics.svc_sink_delivery_failures_total, labels);
  }

  get backlog(): number {
    return this.store.lastOseq - this.store.watermark(this.target.name);
  }

  start(): void {
    this.running ??= this.loop();
  }

  /** The texts of entries just committed from `firstOseq` on (call before `wake`), and their UTF-8 bytes when the caller has them. */
  offer(firstOseq: number, results: readonly { readonly text: string }[], encoded?: Utf8Lines): void {
    if (results.length === 0) return;
    const last = this.recent[this.recent.length - 1];
    if (last !== undefined && last.first + last.results.length !== firstOseq) this.forgetRecent();
    this.recent.push({ first: firstOseq, results, ...(encoded !== undefined ? { encoded } : {}) });
    this.offeredEnd = firstOseq + results.length;
    this.recentCount += results.length;
    // Bounded like the queue: past it, delivery falls back to reading the outbox.
    while (this.recentCount > this.options.capacity && this.recent.length > 0) this.recentCount -= this.recent.shift()?.results.length ?? 0;
  }

  private forgetRecent(): void {
    this.recent.length = 0;
    this.recentCount = 0;
  }

  /** New entries were committed. */
  wake(): void {
    this.updateDepth();
    this.woken = true;
    this.wakeUp?.();
  }

  private updateDepth(): void {
    const depth = Math.min(this.backlog, this.options.capacity);
    this.depths.set(this.target, depth);
  }

  /** For `block` sinks: resolves once the backlog is below capacity. */
  room(): Promise<void> {
    if (this.target.onFull === 'drop' || this.backlog < this.options.capacity || this.stopping) return Promise.resolve();
    return new Promise((resolve) => this.roomWaiters.push(resolve));
  }

  /** Deliver what is committed, then stop; gives up waiting at `deadlineMs` (clock time). */
  async stop(deadlineMs: number): Promise<boolean> {
    this.stopping = true;
    this.wakeUp?.();
    const drained = await Promise.race([
      (this.running ?? Promise.resolve()).then(() => true),
      sleep(this.ctx.clock, Math.max(0, deadlineMs - this.ctx.clock.now())).then(() => false),
    ]);
    this.releaseRoom();
    return drained;
  }

  private async loop(): Promise<void> {
    const log = this.ctx.log.child({ component: 'sink', sink: this.target.name });
    // Entries handed over but not yet committed count in the backlog and cannot be read yet: a round
    // that delivered nothing waits for the next wake instead of spinning.
    let idle = false;
    for (;;) {
      if (this.backlog === 0 || (idle && !this.woken)) {
        this.releaseRoom();
        if (this.stopping && this.backlog === 0) return;
        if (!this.woken) await new Promise<void>((resolve) => (this.wakeUp = resolve));
        this.wakeUp = undefined;
        this.woken = false;
        idle = false;
        continue;
      }
      this.woken = false;
      if (this.target.onFull === 'drop' && this.backlog > this.options.capacity) await this.dropOldest();
      try {
        idle = (await this.deliverOnce()) === 0;
      } catch (error) {
        log.error({ err: error }, 'outbox delivery failed');
        // Shutting down: what is left stays in the outbox for the next start.
        if (this.ctx.signal.aborted) return;
        await sleep(this.ctx.clock, this.options.backoffMaxMs, this.ctx.signal);
      }
      this.updateDepth();
      if (this.backlog < this.options.capacity) this.releaseRoom();
    }
  }

  /** One delivery round: from the texts offered when they are next, else read from the outbox. Returns how many were delivered. */
  private async deliverOnce(): Promise<number> {
    const from = this.store.watermark(this.target.name) + 1;
    while (this.recent[0] !== undefined && this.recent[0].first + this.recent[0].results.length <= from) {
      this.recentCount -= this.recent.shift()?.results.length ?? 0;
    }
    const chunk = this.recent[0];
    if (chunk === undefined || chunk.first > from) {
      // Past everything offered: handed over but not committed yet; its offer and wake follow.
      if (this.offeredEnd > 0 && from >= this.offeredEnd) return 0;
      return deliverOutboxOnce(this.store, this.target.name, (entries) => this.writeWithRetries(() => entries.map((e) => payloadText(e.payload))), {
        limit: this.options.batchMax,
        crashHook: this.crash,
      });
    }
    const start = from - chunk.first;
    const taken = chunk.results.slice(start, start + this.options.batchMax);
    await this.writeWithRetries(() => taken.map((r) => r.text), chunk.encoded?.range(start, start + taken.length));
    this.crash('after-sink-write');
    await this.store.ackDelivered(this.target.name, from + taken.length - 1);
    return taken.length;
  }

  private async dropOldest(): Promise<void> {
    const excess = this.backlog - this.options.capacity;
    await this.store.ackDelivered(this.target.name, this.store.watermark(this.target.name) + excess);
    this.dropped.inc(excess);
  }

  /** `bytes`: the lines of `textsOf()` as UTF-8, for a sink that writes bytes and formats nothing (it reads no text then). */
  private async writeWithRetries(textsOf: () => readonly string[], bytes?: Uint8Array): Promise<void> {
    const { target } = this;
    const writeBytes = target.formatLines === undefined ? target.writeBytes?.bind(target) : undefined;
    let write: () => Promise<void>;
    if (bytes !== undefined && writeBytes !== undefined) write = () => writeBytes(bytes);
    else {
      let text = '';
      const texts = textsOf();
      for (const t of target.formatLines?.(texts) ?? texts) text += `${t}\n`;
      write = () => target.write(text);
    }
    let lastError: unknown;
    for (let attempt = 0; attempt <= this.options.retryMax; attempt++) {
      if (attempt > 0) {
        this.retries.inc();
        await sleep(this.ctx.clock, backoffMs(attempt, this.options.backoffBaseMs, this.options.backoffMaxMs));
      }
      try {
        await write();
        return;
      } catch (error) {
        lastError = error;
        if (error instanceof PermanentDeliveryError) break;
      }
    }
    this.failures.inc();
    const reason = lastError instanceof Error ? lastError.message : String(lastError);
    // The watermark moves on only once the entry has its place in the DLQ: a slow DLQ holds this sink back.
    await this.dlq.reserve(1);
    this.dlq.write(`[${textsOf().join(',')}]`, `sink delivery failure: ${reason}`);
  }

  private releaseRoom(): void {
    for (const r of this.roomWaiters.splice(0)) r();
  }
}
