import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createTailFanout } from '../../streams/index.js';
import type { TailRequest } from '../../protocol/index.js';
import type { CommittedResult, ResultLine } from '../../streams/index.js';
import { liveSink } from './live-sink.js';
import { metricValue, SimulatedClock, testContext } from './support.js';

function result(title: string, level: string | null, id = 'rid'): CommittedResult {
  const line = { result_id: 'e1-0', rule_title: title, rule_id: id, level, tags: [], matched_selections: [], matched_fields: [] } as ResultLine;
  return { result_id: line.result_id, head: line, text: JSON.stringify(line) };
}

describe('detection tail', () => {
  it('filters by minimum level and rule substring at capture time', () => {
    const ctx = testContext();
    const tail = createTailFanout({ max_sessions: 2, buffer_events: 8 }, ctx);
    const s = liveSink();
    tail.open({ level: 'medium', rule: 'whoami' }, s);
    tail.publish([result('Whoami Exec', 'high'), result('Whoami Exec', 'low'), result('Other', 'critical'), result('No Level whoami', null)]);
    expect(s.lines.map((l) => (JSON.parse(l) as { level: string }).level)).toEqual(['high']);
  });

  it('ends after the limit with a summary of streamed and dropped lines', async () => {
    const ctx = testContext();
    const tail = createTailFanout({ max_sessions: 2, buffer_events: 8 }, ctx);
    const s = liveSink(1);
    tail.open({ limit: 2 }, s);
    tail.publish([result('a', 'low'), result('b', 'low'), result('c', 'low')]);
    expect(s.summary).toBeUndefined();
    s.room = Infinity;
    tail.publish([result('d', 'low')]);
    expect(s.summary).toEqual({ streamed: 2, dropped: 2 });
    expect(await metricValue(ctx.registry, 'svc_tail_detections_dropped_total')).toBe(2);
    expect(await metricValue(ctx.registry, 'svc_tail_active_sessions')).toBe(0);
  });

  it('ends a session when its duration passes and refuses sessions past the capacity', async () => {
    const clock = new SimulatedClock();
    const tail = createTailFanout({ max_sessions: 1, buffer_events: 8 }, testContext(clock));
    const s = liveSink();
    expect(tail.open({ durationMs: 1000 }, s).ok).toBe(true);
    expect(tail.open({}, liveSink()).ok).toBe(false);
    await clock.advance(1000);
    expect(s.closed).toBe(true);
    expect(tail.open({}, liveSink()).ok).toBe(true);
  });

  it("offers each session its share of a commit in one step; a stalled session drops and counts it", async () => {
    const ctx = testContext();
    const tail = createTailFanout({ max_sessions: 2, buffer_events: 8 }, ctx);
    const reading = liveSink();
    const stalled = liveSink(0);
    tail.open({}, reading);
    tail.open({}, stalled);
    tail.publish([result('a', 'low'), result('b', 'high')]);
    tail.publish([result('c', 'low')]);
    expect(reading.offers).toBe(2);
    expect(reading.lines.map((l) => (JSON.parse(l) as { rule_title: string }).rule_title)).toEqual(['a', 'b', 'c']);
    expect(stalled.offers).toBe(0);
    tail.closeAll();
    expect(stalled.summary).toEqual({ streamed: 0, dropped: 3 });
    expect(reading.summary).toEqual({ streamed: 3, dropped: 0 });
    expect(await metricValue(ctx.registry, 'svc_tail_detections_dropped_total')).toBe(3);
  });

  it('streams and drops what offering results one by one would, whatever the room, filters, limit and piece size (property)', () => {
    const levels = ['informational', 'low', 'medium', 'high', 'critical', null] as const;
    const arbResult = fc.record({ title: fc.constantFrom('Whoami Exec', 'Other'), level: fc.constantFrom(...levels) });
    const arbRequest = fc.record(
      { level: fc.constantFrom('low', 'high'), rule: fc.constant('whoami'), limit: fc.integer({ min: 1, max: 8 }) },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.array(fc.array(arbResult, { maxLength: 6 }), { maxLength: 6 }), fc.integer({ min: 0, max: 10 }), arbRequest, fc.integer({ min: 1, max: 200 }), (commits, room, request: TailRequest, pieceChars) => {
        const run = (publish: (tail: ReturnType<typeof createTailFanout>, rs: CommittedResult[]) => void, piece = Infinity) => {
          const tail = createTailFanout({ max_sessions: 1, buffer_events: 8 }, testContext());
          const s = liveSink(room, piece);
          tail.open(request, s);
          for (const c of commits) publish(tail, c.map((r) => result(r.title, r.level)));
          tail.closeAll();
          return { lines: s.lines, summary: s.summary };
        };
        const batched = run((tail, rs) => tail.publish(rs), pieceChars);
        // The reference: each result offered on its own, as the tail did before it took commits whole.
        expect(batched).toEqual(run((tail, rs) => rs.forEach((r) => tail.publish([r]))));
        const summary = batched.summary as { streamed: number; dropped: number };
        expect(summary.streamed).toBe(batched.lines.length);
        expect(summary.streamed).toBeLessThanOrEqual(Math.min(room, request.limit ?? Infinity));
      }),
    );
  });
});
