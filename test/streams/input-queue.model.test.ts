import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InputQueue, QueueClosedError, UnitTooLargeError } from '../../streams/index.js';
import { splitIngestLines } from '../../http/ingest-lines.js';
import { lineTexts } from '../../protocol/index.js';
import type { RejectedLine } from '../../protocol/decode/index.js';
import type { InputUnit, UnitOutcome } from '../../streams/index.js';
import { flush, metricValue, testContext } from './support.js';

const CAPACITY = 10;

/** Reference: one entry per offered unit, the chunks queued (line ranges of units) and the offers waiting, in order. */
interface ModelUnit {
  readonly n: number;
  readonly size: number;
  readonly keyed: boolean;
  readonly oversized: number;
  admitted: number;
  /** Refused at the offer: queue closed, or keyed and larger than the capacity. */
  rejectedWith?: 'QueueClosedError' | 'UnitTooLargeError';
  /** Refused by a close while it waited. */
  refused: boolean;
  /** A chunk of it failed to commit. */
  failed: boolean;
}
interface Model {
  readonly units: ModelUnit[];
  queued: { readonly n: number; readonly from: number; readonly to: number; readonly keyed: boolean }[];
  waiting: ModelUnit[];
  closed: boolean;
  backPressure: number;
}
interface Real {
  readonly queue: InputQueue;
  readonly ctx: ReturnType<typeof testContext>;
  readonly offers: Map<number, string>;
  readonly settled: Map<number, UnitOutcome>;
}

/** `n` lines rejected before queueing (only their count matters to the queue). */
const rejections = (n: number): RejectedLine[] => Array.from({ length: n }, (): RejectedLine => ({ ok: false, reason: 'invalid_utf8', bytes: 1, lineNo: 1, head: '\ufffd' }));

const depth = (m: Model) => m.queued.reduce((s, c) => s + c.to - c.from, 0);

/** Waiting offers move in, in order: the head's next chunk (all of it when keyed); on close, none. */
function admitWaiting(m: Model): void {
  for (let h = m.waiting[0]; h !== undefined && !m.closed; h = m.waiting[0]) {
    const free = CAPACITY - depth(m);
    const rest = h.size - h.admitted;
    const k = h.keyed ? (rest <= free ? rest : 0) : Math.min(rest, free);
    if (k === 0) return;
    m.queued.push({ n: h.n, from: h.admitted, to: h.admitted + k, keyed: h.keyed });
    h.admitted += k;
    if (h.admitted < h.size) return;
    m.waiting.shift();
  }
}

/** What the unit's settle should have received by now (undefined: not settled yet). */
function expectedOutcome(m: Model, u: ModelUnit): { ok: true; accepted: number; parseErrors: number } | { ok: false; name: string; accepted?: number } | undefined {
  if (u.rejectedWith !== undefined) return { ok: false, name: u.rejectedWith, ...(u.rejectedWith === 'QueueClosedError' ? { accepted: 0 } : {}) };
  if (m.queued.some((c) => c.n === u.n) || m.waiting.includes(u)) return undefined;
  if (u.failed) return { ok: false, name: 'Error' };
  if (u.admitted === u.size) return { ok: true, accepted: u.size, parseErrors: u.oversized };
  return u.refused ? { ok: false, name: 'QueueClosedError', accepted: u.admitted } : undefined;
}

function expectedOffer(u: ModelUnit): string {
  if (u.rejectedWith !== undefined) return `rejected:${u.rejectedWith}`;
  if (u.refused) return 'rejected:QueueClosedError';
  return u.admitted === u.size ? 'resolved' : 'pending';
}

async function checkAgainst(m: Model, r: Real): Promise<void> {
  await flush();
  expect(r.queue.depth).toBe(depth(m));
  expect(r.queue.depth).toBeLessThanOrEqual(CAPACITY);
  expect(await metricValue(r.ctx.registry, 'svc_input_queue_depth')).toBe(depth(m));
  expect(await metricValue(r.ctx.registry, 'svc_back_pressure_events_total')).toBe(m.backPressure);
  for (const u of m.units) {
    expect(r.offers.get(u.n), `offer ${u.n}`).toBe(expectedOffer(u));
    const want = expectedOutcome(m, u);
    const got = r.settled.get(u.n);
    if (want === undefined) expect(got, `unit ${u.n} settled early`).toBeUndefined();
    else if (want.ok) expect(got).toEqual(want);
    else {
      expect(got?.ok).toBe(false);
      const error = (got as { error: Error & { accepted?: number } }).error;
      expect(error.name).toBe(want.name);
      if (want.accepted !== undefined) expect(error.accepted).toBe(want.accepted);
    }
  }
}

/** Lines name their unit and position: `n:i`; odd units keep them as bytes, as HTTP NDJSON does. */
function unit(u: ModelUnit, settled: Map<number, UnitOutcome>): InputUnit {
  const lines = Array.from({ length: u.size }, (_, i) => `${u.n}:${i}`);
  return {
    lines: u.n % 2 === 1 ? splitIngestLines(new TextEncoder().encode(lines.join('\n'))).lines : lines,
    rejected: rejections(u.oversized),
    ...(u.keyed ? { idempotencyKey: `k${u.n}` } : {}),
    settle: (outcome) => {
      expect(settled.has(u.n), `unit ${u.n} settled twice`).toBe(false);
      settled.set(u.n, outcome);
    },
  };
}

class Offer implements fc.Command<Model, Real> {
  constructor(
    readonly size: number,
    readonly keyed: boolean,
  ) {}
  check(): boolean {
    return true;
  }
  async run(m: Model, r: Real): Promise<void> {
    const u: ModelUnit = { n: m.units.length, size: this.size, keyed: this.keyed, oversized: m.units.length % 3, admitted: 0, refused: false, failed: false };
    m.units.push(u);
    if (m.closed) u.rejectedWith = 'QueueClosedError';
    else if (u.keyed && u.size > CAPACITY) u.rejectedWith = 'UnitTooLargeError';
    else if (m.waiting.length === 0 && u.size <= CAPACITY - depth(m)) {
      m.queued.push({ n: u.n, from: 0, to: u.size, keyed: u.keyed });
      u.admitted = u.size;
    } else {
      m.backPressure++;
      m.waiting.push(u);
      admitWaiting(m);
    }
    r.offers.set(u.n, 'pending');
    r.queue.offer(unit(u, r.settled)).then(
      () => r.offers.set(u.n, 'resolved'),
      (e: Error) => r.offers.set(u.n, `rejected:${e.name}`),
    );
    await checkAgainst(m, r);
  }
  toString(): string {
    return `offer(${this.size}${this.keyed ? ', keyed' : ''})`;
  }
}

/** Takes a batch and settles its units as the batch processor would: committed, or failed. */
class Take implements fc.Command<Model, Real> {
  constructor(
    readonly max: number,
    readonly fail: boolean,
  ) {}
  check(m: Readonly<Model>): boolean {
    return m.queued.length > 0;
  }
  async run(m: Model, r: Real): Promise<void> {
    const want: { n: number; from: number; to: number }[] = [];
    let total = 0;
    for (let next = m.queued[0]; next !== undefined; next = m.queued[0]) {
      if (want.length > 0 && (next.keyed || total + next.to - next.from > this.max)) break;
      want.push({ n: next.n, from: next.from, to: next.to });
      total += next.to - next.from;
      m.queued.shift();
      if (next.keyed) break;
    }
    if (this.fail) for (const c of want) (m.units[c.n] as ModelUnit).failed = true;
    admitWaiting(m);
    const got = await r.queue.take(this.max);
    expect(
      got.map((u) => {
        const lines = lineTexts(u.lines);
        const [n, from] = (lines[0] as string).split(':').map(Number) as [number, number];
        lines.forEach((line, i) => expect(line).toBe(`${n}:${from + i}`));
        return { n, from, to: from + u.lines.length };
      }),
    ).toEqual(want);
    for (const u of got) u.settle?.(this.fail ? { ok: false, error: new Error('commit failed') } : { ok: true, accepted: u.lines.length, parseErrors: u.rejected.length });
    await checkAgainst(m, r);
  }
  toString(): string {
    return `take(${this.max}${this.fail ? ', failing' : ''})`;
  }
}

class Close implements fc.Command<Model, Real> {
  check(m: Readonly<Model>): boolean {
    return !m.closed;
  }
  async run(m: Model, r: Real): Promise<void> {
    m.closed = true;
    for (const u of m.waiting) u.refused = true;
    m.waiting = [];
    r.queue.close();
    await checkAgainst(m, r);
  }
  toString(): string {
    return 'close';
  }
}

describe('input queue', () => {
  it('behaves like a bounded FIFO: depth within capacity, unkeyed units in chunks, keyed ones whole and alone', async () => {
    const commands = fc.commands(
      [
        fc.tuple(fc.integer({ min: 1, max: 14 }), fc.boolean()).map(([s, k]) => new Offer(s, k)),
        fc.tuple(fc.integer({ min: 1, max: 12 }), fc.integer({ min: 0, max: 4 }).map((x) => x === 0)).map(([n, f]) => new Take(n, f)),
        fc.constant(new Close()),
      ],
      { maxCommands: 40 },
    );
    await fc.assert(
      fc.asyncProperty(commands, async (cmds) => {
        const ctx = testContext();
        const queue = new InputQueue(CAPACITY, { depth: ctx.metrics.svc_input_queue_depth, backPressure: ctx.metrics.svc_back_pressure_events_total });
        const real: Real = { queue, ctx, offers: new Map(), settled: new Map() };
        const model: Model = { units: [], queued: [], waiting: [], closed: false, backPressure: 0 };
        await fc.asyncModelRun(() => ({ model, real }), cmds);
      }),
      { numRuns: 150 },
    );
  });

  it('fails waiting offers when closed and still hands out what was queued', async () => {
    const ctx = testContext();
    const q = new InputQueue(2, { depth: ctx.metrics.svc_input_queue_depth, backPressure: ctx.metrics.svc_back_pressure_events_total });
    await q.offer({ lines: ['a', 'b'], rejected: rejections(0) });
    const waiting = q.offer({ lines: ['c'], rejected: rejections(0) });
    q.close();
    await expect(waiting).rejects.toBeInstanceOf(QueueClosedError);
    await expect(q.offer({ lines: ['d'], rejected: rejections(0) })).rejects.toBeInstanceOf(QueueClosedError);
    expect((await q.take(10)).length).toBe(1);
    expect(await q.take(10)).toEqual([]);
  });

  it('admits a request larger than the capacity in chunks and answers once, with its whole count', async () => {
    const ctx = testContext();
    const q = new InputQueue(2, { depth: ctx.metrics.svc_input_queue_depth, backPressure: ctx.metrics.svc_back_pressure_events_total });
    const outcomes: UnitOutcome[] = [];
    const lines = Array.from({ length: 300 }, (_, i) => `{"i":${i}}`);
    const offered = q.offer({ lines, rejected: rejections(1), settle: (o) => outcomes.push(o) });
    const seen: string[] = [];
    while (seen.length < lines.length) {
      expect(q.depth).toBeLessThanOrEqual(2);
      for (const u of await q.take(2)) {
        seen.push(...lineTexts(u.lines));
        u.settle?.({ ok: true, accepted: u.lines.length, parseErrors: u.rejected.length });
      }
    }
    await offered;
    expect(seen).toEqual(lines);
    expect(outcomes).toEqual([{ ok: true, accepted: 300, parseErrors: 1 }]);
    expect(await metricValue(ctx.registry, 'svc_back_pressure_events_total')).toBe(1);
  });

  it('queues a unit without lines (all of them oversized) even when full, so its answer still comes', async () => {
    const ctx = testContext();
    const q = new InputQueue(1, { depth: ctx.metrics.svc_input_queue_depth, backPressure: ctx.metrics.svc_back_pressure_events_total });
    await q.offer({ lines: ['a'], rejected: rejections(0) });
    await q.offer({ lines: [], rejected: rejections(2) });
    expect(q.depth).toBe(1);
    expect((await q.take(10)).map((u) => u.rejected.length)).toEqual([0, 2]);
  });

  it('refuses a keyed unit larger than the capacity, since its key commits with all its lines at once', async () => {
    const ctx = testContext();
    const q = new InputQueue(2, { depth: ctx.metrics.svc_input_queue_depth, backPressure: ctx.metrics.svc_back_pressure_events_total });
    const outcomes: UnitOutcome[] = [];
    await expect(q.offer({ lines: ['a', 'b', 'c'], rejected: rejections(0), idempotencyKey: 'k', settle: (o) => outcomes.push(o) })).rejects.toBeInstanceOf(
      UnitTooLargeError,
    );
    expect(outcomes).toHaveLength(1);
    expect(q.depth).toBe(0);
  });
});
