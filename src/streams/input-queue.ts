import type { Gauge, Counter } from 'prom-client';

/** Lines handed to the engine together: one HTTP request, or a chunk of stdin. */
export interface InputUnit {
  readonly lines: readonly string[];
  /** Lines rejected for size before queueing; counted as parse errors. */
  readonly oversized: number;
  readonly idempotencyKey?: string;
  /** Called once the unit's batch is committed (or failed). */
  readonly settle?: (outcome: UnitOutcome) => void;
}

export type UnitOutcome =
  | { readonly ok: true; readonly accepted: number; readonly parseErrors: number }
  | { readonly ok: false; readonly error: Error };

export interface InputQueueMetrics {
  readonly depth: Gauge;
  readonly backPressure: Counter;
}

export class QueueClosedError extends Error {
  override readonly name = 'QueueClosedError';
}

/**
 * The bounded input queue between sources and the engine, counted in lines. A full queue makes
 * `offer` wait (back-pressure on the source, counted once per waiting offer); a unit larger than
 * the whole capacity is admitted when the queue is empty so it can never wait forever.
 */
export class InputQueue {
  private readonly units: InputUnit[] = [];
  private lines = 0;
  private readonly waitingOffers: (() => void)[] = [];
  private waitingTake: (() => void) | undefined;
  private closed = false;

  constructor(
    readonly capacity: number,
    private readonly metrics: InputQueueMetrics,
  ) {}

  get depth(): number {
    return this.lines;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  async offer(unit: InputUnit): Promise<void> {
    if (this.closed) throw new QueueClosedError('input queue closed');
    if (!this.fits(unit)) {
      this.metrics.backPressure.inc();
      while (!this.fits(unit)) {
        await new Promise<void>((resolve) => this.waitingOffers.push(resolve));
        if (this.closed) throw new QueueClosedError('input queue closed');
      }
    }
    this.units.push(unit);
    this.lines += unit.lines.length;
    this.metrics.depth.set(this.lines);
    this.waitingTake?.();
  }

  /**
   * Up to `maxLines` lines' worth of units (at least one unit), waiting for the first. A unit
   * with an idempotency key is always a batch of its own (one key per commit). Resolves with
   * an empty list once the queue is closed and empty.
   */
  async take(maxLines: number): Promise<InputUnit[]> {
    while (this.units.length === 0) {
      if (this.closed) return [];
      await new Promise<void>((resolve) => (this.waitingTake = resolve));
      this.waitingTake = undefined;
    }
    const out: InputUnit[] = [];
    let taken = 0;
    while (this.units.length > 0) {
      const next = this.units[0] as InputUnit;
      const keyed = next.idempotencyKey !== undefined;
      if (out.length > 0 && (keyed || taken + next.lines.length > maxLines || out[0]?.idempotencyKey !== undefined)) break;
      out.push(next);
      this.units.shift();
      taken += next.lines.length;
      if (keyed) break;
    }
    this.lines -= taken;
    this.metrics.depth.set(this.lines);
    this.wakeOffers();
    return out;
  }

  /** No more offers; queued units are still taken. Waiting offers fail. */
  close(): void {
    this.closed = true;
    this.wakeOffers();
    this.waitingTake?.();
  }

  private fits(unit: InputUnit): boolean {
    return this.closed || this.lines === 0 || this.lines + unit.lines.length <= this.capacity;
  }

  private wakeOffers(): void {
    for (const wake of this.waitingOffers.splice(0)) wake();
  }
}
