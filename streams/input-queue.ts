import type { Gauge, Counter } from 'prom-client';
import { QueueClosedError, UnitTooLargeError } from './input-unit.js';
import type { InputUnit } from './input-unit.js';
import { UnitChunks } from './unit-chunks.js';

export { QueueClosedError, UnitTooLargeError } from './input-unit.js';
export type { InputUnit, UnitOutcome } from './input-unit.js';

export interface InputQueueMetrics {
  readonly depth: Gauge;
  readonly backPressure: Counter;
}

interface WaitingOffer {
  readonly chunks: UnitChunks;
  readonly admit: (admitted: boolean) => void;
}

/**
 * The bounded input queue between sources and the engine, counted in lines: its depth never exceeds
 * `capacity`. An offer that does not fit waits (back-pressure on the source, counted once per
 * waiting offer), first come, first served. A unit without an idempotency key is admitted in chunks
 * as space frees (each chunk its own unit, the whole settling once all chunks have). A keyed unit
 * stays whole, since its key is committed with exactly its lines in one transaction: it waits for
 * room for all of it, and one larger than the whole capacity is refused with `UnitTooLargeError`.
 * Every offered unit is settled exactly once, refused ones included.
 */
export class InputQueue {
  private readonly units: InputUnit[] = [];
  private lines = 0;
  private readonly waitingOffers: WaitingOffer[] = [];
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

  /** Resolves once all of `unit` is queued; rejects (and settles the unit) when it is refused. */
  async offer(unit: InputUnit): Promise<void> {
    const size = unit.lines.length;
    const refusal = this.closed
      ? new QueueClosedError('input queue closed')
      : unit.idempotencyKey !== undefined && size > this.capacity
        ? new UnitTooLargeError(this.capacity)
        : undefined;
    if (refusal !== undefined) {
      unit.settle?.({ ok: false, error: refusal });
      throw refusal;
    }
    if (this.waitingOffers.length === 0 && size <= this.free) return this.enqueue(unit);
    this.metrics.backPressure.inc();
    const admitted = new Promise<boolean>((admit) => this.waitingOffers.push({ chunks: new UnitChunks(unit), admit }));
    this.wakeOffers();
    if (!(await admitted)) throw new QueueClosedError('input queue closed');
  }

  private get free(): number {
    return this.capacity - this.lines;
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

  /**
   * Move waiting offers into the queue in order while there is room: the head's next chunk (a keyed
   * head only whole); on close, refuse them all (what was admitted of the head still runs).
   */
  private wakeOffers(): void {
    for (let head = this.waitingOffers[0]; head !== undefined; head = this.waitingOffers[0]) {
      const { chunks } = head;
      if (this.closed) chunks.refuse();
      else {
        const room = chunks.unit.idempotencyKey !== undefined ? (chunks.remaining <= this.free ? chunks.remaining : 0) : this.free;
        if (chunks.remaining > 0 && room === 0) return;
        this.enqueue(chunks.next(room));
        if (chunks.remaining > 0) return;
      }
      this.waitingOffers.shift();
      head.admit(!this.closed);
    }
  }
}
