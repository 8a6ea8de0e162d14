import { describe, expect, it } from 'vitest';
import { createTailFanout } from '../../streams/index.js';
import type { CommittedResult, ResultLine, TailSink } from '../../streams/index.js';
import { metricValue, SimulatedClock, testContext } from './support.js';

function sink(room = Infinity): TailSink & { lines: string[]; summary?: string } {
  const s = {
    lines: [] as string[],
    summary: undefined as string | undefined,
    closed: false,
    push(line: string) {
      if (s.closed || s.lines.length >= room) return false;
      s.lines.push(line);
      return true;
    },
    end(summary: string) {
      s.summary = summary;
      s.closed = true;
    },
  };
  return s;
}

function result(title: string, level: string | null, id = 'rid'): CommittedResult {
  const line = { result_id: 'e1-0', rule_title: title, rule_id: id, level, tags: [], matched_selections: [], matched_fields: [] } as ResultLine;
  return { result_id: line.result_id, head: line, text: JSON.stringify(line) };
}

describe('detection tail', () => {
  it('filters by minimum level and rule substring at capture time', () => {
    const ctx = testContext();
    const tail = createTailFanout({ max_sessions: 2, buffer_events: 8 }, ctx);
    const s = sink();
    tail.open({ level: 'medium', rule: 'whoami' }, s);
    tail.publish([result('Whoami Exec', 'high'), result('Whoami Exec', 'low'), result('Other', 'critical'), result('No Level whoami', null)]);
    expect(s.lines.map((l) => (JSON.parse(l) as { level: string }).level)).toEqual(['high']);
  });

  it('ends after the limit with a summary of streamed and dropped lines', async () => {
    const ctx = testContext();
    const tail = createTailFanout({ max_sessions: 2, buffer_events: 8 }, ctx);
    const s = sink(1);
    tail.open({ limit: 2 }, s);
    tail.publish([result('a', 'low'), result('b', 'low'), result('c', 'low')]);
    expect(s.summary).toBeUndefined();
    s.push = () => true;
    tail.publish([result('d', 'low')]);
    expect(JSON.parse(s.summary ?? '{}')).toEqual({ svc_tail_summary: { streamed: 2, dropped: 2 } });
    expect(await metricValue(ctx.registry, 'svc_tail_detections_dropped_total')).toBe(2);
    expect(await metricValue(ctx.registry, 'svc_tail_active_sessions')).toBe(0);
  });

  it('ends a session when its duration passes and refuses sessions past the capacity', async () => {
    const clock = new SimulatedClock();
    const tail = createTailFanout({ max_sessions: 1, buffer_events: 8 }, testContext(clock));
    const s = sink();
    expect(tail.open({ durationMs: 1000 }, s).ok).toBe(true);
    expect(tail.open({}, sink()).ok).toBe(false);
    await clock.advance(1000);
    expect(s.closed).toBe(true);
    expect(tail.open({}, sink()).ok).toBe(true);
  });
});
