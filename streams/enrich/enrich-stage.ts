import type { Counter } from 'prom-client';
import { bindZeroed, HistogramTally } from '../../protocol/index.js';
import type { CommittedResult } from '../batch-processor.js';
import type { ResultKind } from '../result-template.js';
import { resultValue, withEnrichments } from '../result-value.js';
import type { StageContext } from '../stage-context.js';
import { EnrichError, type Enricher, type ResultRecord } from './enricher.js';

/** A loaded enrichers file: its entries in file order and `max_concurrent_enrichments`. */
export interface EnricherSet {
  readonly enrichers: readonly Enricher[];
  readonly maxConcurrent: number;
}

type Status = 'success' | 'skip' | 'error' | 'timeout' | 'drop';
const STATUSES: readonly Status[] = ['success', 'skip', 'error', 'timeout', 'drop'];

/** An enricher with its metric children, bound once when its set is loaded. */
interface Bound {
  readonly e: Enricher;
  readonly status: Readonly<Record<Status, Counter.Internal>>;
  /** Outcomes of the batch under way, added to `status` once per batch (a labelled `inc` is not free). */
  readonly tally: Record<Status, number>;
  /** Call durations, added to the histogram once per batch like `tally`. */
  readonly duration: HistogramTally<'enricher_id' | 'kind'>;
  /** The first failure is a warning; later ones are debug lines (failures can come per result). */
  warned: boolean;
}

interface ActiveSet {
  readonly bound: readonly Bound[];
  readonly kinds: ReadonlySet<ResultKind>;
  readonly permits: Semaphore;
}

type Outcome = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: unknown; readonly timeout: boolean };

/** Bounds the enricher calls that wait on I/O at once (`max_concurrent_enrichments`). */
class Semaphore {
  private free: number;
  private readonly waiting: (() => void)[] = [];
  constructor(permits: number) {
    this.free = permits;
  }
  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await fn();
    } finally {
      const next = this.waiting.shift();
      if (next !== undefined) next();
      else this.free++;
    }
  }
}

const NEVER_ABORTED = new AbortController().signal;
const EMPTY: ActiveSet = { bound: [], kinds: new Set(), permits: new Semaphore(1) };

/**
 * The enrichment stage (daemon-semantics §6 step 2, §7.3): every result runs through the enrichers
 * of its kind and scope in file order; values land under `enrichments.<inject_field>`; failures and
 * timeouts follow `on_error`. A batch whose enrichers answer synchronously (template) is enriched
 * without awaiting; otherwise results are enriched concurrently (enrichers of one result in order),
 * each call bounded by its timeout. Dropped results leave the batch; the others keep their order.
 */
export class EnrichStage {
  private set: ActiveSet = EMPTY;
  private readonly log;

  constructor(private readonly ctx: StageContext) {
    this.log = ctx.log.child({ component: 'enrich' });
  }

  /** Enrichers in force. */
  get size(): number {
    return this.set.bound.length;
  }

  /** Puts `set` in force for the next batch; its metric series exist from now on (§7.5). */
  load(set: EnricherSet): void {
    const m = this.ctx.metrics;
    const bound = set.enrichers.map((e): Bound => {
      const labels = { enricher_id: e.id, kind: e.kind };
      const status = Object.fromEntries(STATUSES.map((s) => [s, bindZeroed(m.svc_enrichment_total, { ...labels, status: s })])) as Record<Status, Counter.Internal>;
      return { e, status, tally: { success: 0, skip: 0, error: 0, timeout: 0, drop: 0 }, duration: new HistogramTally(m.svc_enrichment_duration_seconds, labels), warned: false };
    });
    this.set = { bound, kinds: new Set(set.enrichers.map((e) => e.kind)), permits: new Semaphore(set.maxConcurrent) };
  }

  apply(lines: readonly CommittedResult[]): readonly CommittedResult[] | Promise<readonly CommittedResult[]> {
    const set = this.set;
    if (set.bound.length === 0) return lines;
    const out: (CommittedResult | null)[] = new Array<CommittedResult | null>(lines.length);
    let pending: Promise<void>[] | undefined;
    let changed = false;
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i] as CommittedResult;
      const kind: ResultKind = line.head.correlation_type === undefined ? 'detection' : 'correlation';
      if (line.bypass === true || !set.kinds.has(kind)) {
        out[i] = line;
        continue;
      }
      changed = true;
      const enriched = this.enrichFrom(set, line, kind, resultValue(line), {}, 0);
      if (enriched instanceof Promise) (pending ??= []).push(enriched.then((v) => void (out[i] = v)));
      else out[i] = enriched;
    }
    if (!changed) return lines;
    if (pending === undefined) return this.finish(set, out);
    return Promise.all(pending).then(() => this.finish(set, out));
  }

  /** The batch's counts into the metrics; the results that were not dropped, in order. */
  private finish(set: ActiveSet, out: readonly (CommittedResult | null)[]): readonly CommittedResult[] {
    for (const b of set.bound) {
      b.duration.flush();
      for (const s of STATUSES) {
        if (b.tally[s] === 0) continue;
        b.status[s].inc(b.tally[s]);
        b.tally[s] = 0;
      }
    }
    const kept: CommittedResult[] = [];
    for (const l of out) if (l !== null) kept.push(l);
    return kept;
  }

  /** Runs the enrichers from index `j` on one result; synchronous until an enricher has to wait. */
  private enrichFrom(
    set: ActiveSet,
    line: CommittedResult,
    kind: ResultKind,
    result: ResultRecord,
    writes: Record<string, unknown>,
    j: number,
  ): CommittedResult | null | Promise<CommittedResult | null> {
    for (; j < set.bound.length; j++) {
      const b = set.bound[j] as Bound;
      if (b.e.kind !== kind || !b.e.scope(result)) continue;
      if (!b.e.sync) {
        const next = j + 1;
        return set.permits.run(() => this.callAsync(b, result)).then((o) => (this.settle(b, o, writes) ? this.enrichFrom(set, line, kind, result, writes, next) : null));
      }
      if (!this.settle(b, this.callSync(b, result), writes)) return null;
    }
    return hasAny(writes) ? withEnrichments(line, writes) : line;
  }

  /** A synchronous primitive: nothing to time out, and no scrape can see it queued. */
  private callSync(b: Bound, result: ResultRecord): Outcome {
    const started = performance.now();
    try {
      return { ok: true, value: b.e.call(result, NEVER_ABORTED) };
    } catch (error) {
      return { ok: false, error, timeout: false };
    } finally {
      b.duration.observe((performance.now() - started) / 1000);
    }
  }

  private async callAsync(b: Bound, result: ResultRecord): Promise<Outcome> {
    const depth = this.ctx.metrics.svc_enrichment_queue_depth;
    const abort = new AbortController();
    let timedOut = false;
    const started = performance.now();
    depth.inc();
    try {
      const value = await new Promise<unknown>((resolve, reject) => {
        const cancel = this.ctx.clock.setTimer(() => {
          timedOut = true;
          reject(new EnrichError(`timed out after ${b.e.timeoutMs} ms`));
          abort.abort();
        }, b.e.timeoutMs);
        Promise.resolve()
          .then(() => b.e.call(result, abort.signal))
          .then(resolve, reject)
          .finally(cancel);
      });
      return { ok: true, value };
    } catch (error) {
      return { ok: false, error, timeout: timedOut };
    } finally {
      depth.dec();
      b.duration.observe((performance.now() - started) / 1000);
    }
  }

  /** Counts the outcome and applies `on_error`; false when the result is dropped. */
  private settle(b: Bound, o: Outcome, writes: Record<string, unknown>): boolean {
    if (o.ok) {
      writes[b.e.injectField] = o.value;
      b.tally.success++;
      return true;
    }
    this.report(b, o.error, o.timeout);
    switch (b.e.onError) {
      case 'skip':
        b.tally[o.timeout ? 'timeout' : 'skip']++;
        return true;
      case 'null':
        writes[b.e.injectField] = null;
        b.tally[o.timeout ? 'timeout' : 'error']++;
        return true;
      case 'drop':
        b.tally.drop++;
        return false;
    }
  }

  private report(b: Bound, error: unknown, timeout: boolean): void {
    const fields = { enricher: b.e.id, onError: b.e.onError, timeout, reason: error instanceof Error ? error.message : String(error) };
    if (b.warned) this.log.debug(fields, 'enrichment failed');
    else {
      b.warned = true;
      this.log.warn(fields, 'enrichment failed (later failures of this enricher are logged at debug)');
    }
  }
}

function hasAny(writes: Record<string, unknown>): boolean {
  for (const _ in writes) return true;
  return false;
}
