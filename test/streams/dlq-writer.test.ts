import fc from 'fast-check';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createDlqWriter } from '../../streams/index.js';
import type { DlqEntry, DlqWriter, UnitOutcome } from '../../streams/index.js';
import { CRASH_RULES, inline, openHarness, ruleSetFrom } from './pipeline-harness.js';
import { flush, metricValue, testContext } from './support.js';

/** A context whose log records are kept, to check every loss is logged. */
function loggingContext() {
  const logs: Record<string, unknown>[] = [];
  const ctx = { ...testContext(), log: pino({ level: 'info' }, { write: (s: string) => void logs.push(JSON.parse(s) as Record<string, unknown>) }) };
  const lostLogged = () => logs.filter((l) => String(l['msg']).startsWith('dead-letter entries lost')).reduce((s, l) => s + Number(l['entries']), 0);
  return { ctx, logs, lostLogged };
}

/** An append the test completes (or fails) one call at a time. */
function slowAppend() {
  const calls: { text: string; done: (error?: Error) => void }[] = [];
  const written: string[] = [];
  const append = (text: string) =>
    new Promise<void>((resolve, reject) => {
      calls.push({ text, done: (error) => (error === undefined ? (written.push(...text.trimEnd().split('\n')), resolve()) : reject(error)) });
    });
  const next = async (error?: Error) => {
    await flush();
    const call = calls.shift();
    call?.done(error);
    await flush();
    return call !== undefined;
  };
  return { append, calls, written, next };
}

const originals = (lines: readonly string[]) => lines.map((l) => (JSON.parse(l) as DlqEntry).original_event);

describe('dead-letter writer', () => {
  it('holds at most its capacity: a producer that reserves waits for room instead of losing entries', async () => {
    const { ctx, lostLogged } = loggingContext();
    const slow = slowAppend();
    const dlq = createDlqWriter(ctx, slow.append, 3);
    const sent = Array.from({ length: 20 }, (_, i) => `e${i}`);
    let queued = 0;
    const producer = (async () => {
      for (const e of sent) {
        await dlq.reserve(1);
        dlq.write(e, 'sink delivery failure: down');
        queued++;
      }
    })();
    let maxDepth = 0;
    for (let guard = 0; queued < sent.length || slow.calls.length > 0 || dlq.depth > 0; guard++) {
      expect(guard).toBeLessThan(100);
      maxDepth = Math.max(maxDepth, dlq.depth);
      expect(dlq.depth).toBeLessThanOrEqual(3);
      await slow.next();
    }
    await producer;
    await dlq.flush();
    expect(maxDepth).toBe(3);
    expect(originals(slow.written)).toEqual(sent);
    expect(dlq.dropped).toBe(0);
    expect(lostLogged()).toBe(0);
    expect(await metricValue(ctx.registry, 'svc_dlq_events_total')).toBe(20);
  });

  it('hands room to reservers first come, first served, a whole reservation at once', async () => {
    const slow = slowAppend();
    const dlq = createDlqWriter(testContext(), slow.append, 4);
    const order: string[] = [];
    await dlq.reserve(4);
    for (let i = 0; i < 4; i++) dlq.write(`a${i}`, 'parse error');
    const b = dlq.reserve(3).then(() => order.push('b'));
    const c = dlq.reserve(1).then(() => order.push('c'));
    await flush();
    expect(order).toEqual([]);
    await slow.next();
    await Promise.all([b, c]);
    expect(order).toEqual(['b', 'c']);
    expect(dlq.depth).toBe(4);
  });

  it('with on_full=drop never makes a reserver wait: what does not fit is dropped, counted and logged', async () => {
    const { ctx, lostLogged } = loggingContext();
    const slow = slowAppend();
    const dlq = createDlqWriter(ctx, slow.append, 2, 'drop');
    for (let i = 0; i < 4; i++) {
      await dlq.reserve(1);
      dlq.write(`p${i}`, 'parse error');
    }
    expect(dlq.dropped).toBe(2);
    expect(lostLogged()).toBe(2);
    while (await slow.next());
    await dlq.flush();
    expect(originals(slow.written)).toEqual(['p0', 'p1']);
  });

  it('drops, counts and logs an entry written without reserved room to a full queue', async () => {
    const { ctx, logs, lostLogged } = loggingContext();
    const slow = slowAppend();
    const dlq = createDlqWriter(ctx, slow.append, 2);
    for (let i = 0; i < 5; i++) dlq.write(`p${i}`, 'parse error');
    expect(dlq.depth).toBe(2);
    expect(dlq.dropped).toBe(3);
    expect(lostLogged()).toBe(3);
    expect(logs.find((l) => l['msg'] === 'dead-letter entries lost: queue full')).toMatchObject({ level: 50, component: 'dlq', dropped: 1 });
    while (await slow.next());
    await dlq.flush();
    expect(originals(slow.written)).toEqual(['p0', 'p1']);
    expect(await metricValue(ctx.registry, 'svc_dlq_events_total')).toBe(5);
  });

  it('counts and logs the entries of a failed write, and keeps writing the next ones', async () => {
    const { ctx, logs, lostLogged } = loggingContext();
    const slow = slowAppend();
    const dlq = createDlqWriter(ctx, slow.append, 8);
    dlq.write('x0', 'parse error');
    dlq.write('x1', 'parse error');
    await slow.next(new Error('disk full'));
    dlq.write('x2', 'parse error');
    await slow.next();
    await dlq.flush();
    expect(originals(slow.written)).toEqual(['x2']);
    expect(dlq.dropped).toBe(2);
    expect(lostLogged()).toBe(2);
    expect(logs.find((l) => l['msg'] === 'dead-letter entries lost: write failed')).toMatchObject({ entries: 2, err: { message: 'disk full' } });
    expect(dlq.depth).toBe(0);
  });

  it('without a DLQ only counts, and never makes anyone wait', async () => {
    const ctx = testContext();
    const dlq = createDlqWriter(ctx, undefined, 1);
    await dlq.reserve(5);
    for (let i = 0; i < 5; i++) dlq.write(`n${i}`, 'sink delivery failure: down');
    await dlq.flush();
    expect(dlq.depth).toBe(0);
    expect(dlq.dropped).toBe(0);
    expect(await metricValue(ctx.registry, 'svc_dlq_events_total')).toBe(5);
  });

  it('never exceeds its capacity and accounts for every entry: written, or dropped and logged', async () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('reserve' as const), count: fc.integer({ min: 1, max: 6 }) }),
      fc.record({ kind: fc.constant('write' as const), count: fc.integer({ min: 1, max: 6 }) }),
      fc.record({ kind: fc.constant('complete' as const), fail: fc.boolean() }),
    );
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 5 }), fc.array(op, { maxLength: 30 }), async (capacity, ops) => {
        const { ctx, lostLogged } = loggingContext();
        const slow = slowAppend();
        const dlq = createDlqWriter(ctx, slow.append, capacity);
        let sent = 0;
        let failedEntries = 0;
        const reservers: Promise<void>[] = [];
        for (const o of ops) {
          if (o.kind === 'reserve') {
            // A waiting producer: reserves its batch's room, then writes it all at once.
            reservers.push(
              dlq.reserve(o.count).then(() => {
                for (let i = 0; i < o.count; i++) dlq.write(`r${sent++}`, 'parse error');
              }),
            );
          } else if (o.kind === 'write') {
            for (let i = 0; i < o.count; i++) dlq.write(`w${sent++}`, 'parse error');
          } else {
            const call = slow.calls[0];
            if (o.fail && call !== undefined) failedEntries += call.text.trimEnd().split('\n').length;
            await slow.next(o.fail ? new Error('io') : undefined);
          }
          await flush();
          expect(dlq.depth).toBeLessThanOrEqual(capacity);
        }
        while ((await slow.next()) || dlq.depth > 0);
        await Promise.all(reservers);
        while (await slow.next());
        await dlq.flush();
        expect(slow.written.length + dlq.dropped).toBe(sent);
        expect(lostLogged()).toBe(dlq.dropped);
        expect(dlq.dropped).toBeGreaterThanOrEqual(failedEntries);
        expect(await metricValue(ctx.registry, 'svc_dlq_events_total')).toBe(sent);
      }),
      { numRuns: 100 },
    );
  });

  it('holds a batch back until its parse errors have room in the DLQ, so none is lost', async () => {
    const rules = ruleSetFrom(CRASH_RULES);
    const slow = slowAppend();
    let dlq: DlqWriter | undefined;
    const h = await openHarness(rules, undefined, inline(rules), (ctx) => (dlq = createDlqWriter(ctx, slow.append, 3)));
    expect(await h.send(['{a', '{b', '{c'])).toMatchObject({ ok: true, parseErrors: 3 });
    let second: UnitOutcome | undefined;
    const sent = h.send(['{d', '{}', '{e']).then((o) => (second = o));
    await flush();
    expect(second).toBeUndefined();
    expect(h.store.nextInputOrdinal).toBe(3);
    await slow.next();
    await sent;
    expect(second).toMatchObject({ ok: true, accepted: 3, parseErrors: 2 });
    while (await slow.next());
    await dlq?.flush();
    expect(originals(slow.written)).toEqual(['{a', '{b', '{c', '{d', '{e']);
    expect(dlq?.dropped).toBe(0);
  });
});
