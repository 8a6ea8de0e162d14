import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InputQueue, QueueClosedError } from '../../src/streams/index.js';
import type { InputUnit } from '../../src/streams/index.js';
import { flush, metricValue, testContext } from './support.js';

const CAPACITY = 10;

/** Reference: a FIFO of unit sizes plus the offers waiting for room, in order. */
interface Model {
  queued: { size: number; keyed: boolean; n: number }[];
  waiting: { size: number; keyed: boolean; n: number }[];
  taken: number[];
  closed: boolean;
  backPressure: number;
  next: number;
}
interface Real {
  readonly queue: InputQueue;
  readonly taken: number[];
  readonly ctx: ReturnType<typeof testContext>;
}

const lines = (m: Model) => m.queued.reduce((s, u) => s + u.size, 0);
const fits = (m: Model, size: number) => lines(m) === 0 || lines(m) + size <= CAPACITY;

function admitWaiting(m: Model): void {
  while (m.waiting.length > 0 && fits(m, (m.waiting[0] as { size: number }).size)) m.queued.push(m.waiting.shift() as Model['waiting'][number]);
}

function unit(size: number, keyed: boolean, n: number): InputUnit {
  return { lines: Array.from({ length: size }, (_, i) => `${n}:${i}`), rejected: [], ...(keyed ? { idempotencyKey: `k${n}` } : {}) };
}

class Offer implements fc.Command<Model, Real> {
  constructor(
    readonly size: number,
    readonly keyed: boolean,
  ) {}
  check(m: Readonly<Model>): boolean {
    return !m.closed;
  }
  async run(m: Model, r: Real): Promise<void> {
    const n = m.next++;
    const u = { size: this.size, keyed: this.keyed, n };
    if (m.waiting.length === 0 && fits(m, this.size)) m.queued.push(u);
    else {
      m.waiting.push(u);
      m.backPressure++;
    }
    void r.queue.offer(unit(this.size, this.keyed, n)).catch((e: unknown) => expect(e).toBeInstanceOf(QueueClosedError));
    await flush();
    expect(r.queue.depth).toBe(lines(m));
  }
  toString(): string {
    return `offer(${this.size}${this.keyed ? ', keyed' : ''})`;
  }
}

class Take implements fc.Command<Model, Real> {
  constructor(readonly max: number) {}
  check(m: Readonly<Model>): boolean {
    return m.queued.length > 0;
  }
  async run(m: Model, r: Real): Promise<void> {
    const out: number[] = [];
    let total = 0;
    for (;;) {
      const next = m.queued[0];
      if (next === undefined) break;
      if (out.length > 0 && (next.keyed || total + next.size > this.max)) break;
      out.push(next.n);
      total += next.size;
      m.queued.shift();
      if (next.keyed) break;
    }
    admitWaiting(m);
    const got = await r.queue.take(this.max);
    await flush();
    expect(got.map((u) => Number(u.lines[0]?.split(':')[0]))).toEqual(out);
    expect(r.queue.depth).toBe(lines(m));
    expect(await metricValue(r.ctx.registry, 'svc_input_queue_depth')).toBe(lines(m));
  }
  toString(): string {
    return `take(${this.max})`;
  }
}

describe('input queue', () => {
  it('behaves like a bounded FIFO with waiting offers, keyed units alone in their batch', async () => {
    const commands = fc.commands(
      [
        fc.tuple(fc.integer({ min: 1, max: 14 }), fc.boolean()).map(([s, k]) => new Offer(s, k)),
        fc.integer({ min: 1, max: 12 }).map((n) => new Take(n)),
      ],
      { maxCommands: 40 },
    );
    await fc.assert(
      fc.asyncProperty(commands, async (cmds) => {
        const ctx = testContext();
        const real: Real = { queue: new InputQueue(CAPACITY, { depth: ctx.metrics.svc_input_queue_depth, backPressure: ctx.metrics.svc_back_pressure_events_total }), taken: [], ctx };
        const model: Model = { queued: [], waiting: [], taken: [], closed: false, backPressure: 0, next: 0 };
        await fc.asyncModelRun(() => ({ model, real }), cmds);
        expect(await metricValue(ctx.registry, 'svc_back_pressure_events_total')).toBe(model.backPressure);
      }),
      { numRuns: 150 },
    );
  });

  it('fails waiting offers when closed and still hands out what was queued', async () => {
    const ctx = testContext();
    const q = new InputQueue(2, { depth: ctx.metrics.svc_input_queue_depth, backPressure: ctx.metrics.svc_back_pressure_events_total });
    await q.offer(unit(2, false, 0));
    const waiting = q.offer(unit(1, false, 1));
    q.close();
    await expect(waiting).rejects.toBeInstanceOf(QueueClosedError);
    await expect(q.offer(unit(1, false, 2))).rejects.toBeInstanceOf(QueueClosedError);
    expect((await q.take(10)).length).toBe(1);
    expect(await q.take(10)).toEqual([]);
  });
});
