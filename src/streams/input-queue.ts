import type { Gauge, Counter } from 'prom-client';
import type { RejectedLine } from '../protocol/decode/index.js';

/** Lines handed to the engine together: one HTTP request, or a chunk of stdin. */
export interface InputUnit {
  readonly lines: readonly string[];
  /** Lines rejected before queueing (oversized, not UTF-8): counted as parse errors and dead-lettered. */
  readonly rejected: readonly RejectedLine[];
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
  private readonly waitingOffers: { readonly unit: InputUnit; readonly admit: (admitted: boolean) => void }[] = [];
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

  /** Waits (first come, first served) while the queue is full. */
  async offer(unit: InputUnit): Promise<void> {
    if (this.closed) throw new QueueClosedError('input queue closed');
    if (this.waitingOffers.length === 0 && this.fits(unit.lines.length)) return this.enqueue(unit);
    this.metrics.backPressure.inc();
    const admitted = await new Promise<boolean>((admit) => this.waitingOffers.push({ unit, admit }));
    if (!admitted) throw new QueueClosedError('input queue closed');
  }

  private enqueue(unit: InputUnit): void {
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

  private fits(size: number): boolean {
    return this.lines === 0 || this.lines + size <= this.capacity;
  }

  /** Move waiting offers into the queue in order while the head fits; on close, refuse them all. */
  private wakeOffers(): void {
    while (this.waitingOffers.length > 0) {
      const head = this.waitingOffers[0] as { unit: InputUnit; admit: (admitted: boolean) => void };
      if (!this.closed && !this.fits(head.unit.lines.length)) return;
      this.waitingOffers.shift();
      if (this.closed) head.admit(false);
      else {
        this.enqueue(head.unit);
        head.admit(true);
      }
    }
  }
}
