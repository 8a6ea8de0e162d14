import { describe, expect, it } from 'vitest';
import type { WindowShape } from '../../../sigma/correlation/index.js';
import { decideWindow, sessionOver, windowStart } from '../../../sigma/correlation/index.js';

const sliding: WindowShape = { window: 'sliding', timespanMs: 60_000, gapMs: 60_000 };
const tumbling: WindowShape = { window: 'tumbling', timespanMs: 60_000, gapMs: 60_000 };
const session: WindowShape = { window: 'session', timespanMs: 60_000, gapMs: 10_000 };
const bounds = (mark: number, earliest?: number, latest?: number) => ({ mark, earliest, latest });

describe('window decisions', () => {
  it('accepts anything into a group that has seen nothing', () => {
    for (const w of [sliding, tumbling, session]) expect(decideWindow(w, bounds(-1), 0)).toBe('extend');
  });

  it('keeps the sliding boundary closed: an entry exactly at mark − timespan is inside', () => {
    expect(decideWindow(sliding, bounds(100_000, 50_000, 100_000), 40_000)).toBe('extend');
    expect(decideWindow(sliding, bounds(100_000, 50_000, 100_000), 39_999)).toBe('late');
    expect(windowStart(sliding, 100_000)).toBe(40_000);
  });

  it('resets a tumbling window in a later bucket and drops entries of an earlier one', () => {
    expect(decideWindow(tumbling, bounds(61_000, 61_000, 61_000), 119_999)).toBe('extend');
    expect(decideWindow(tumbling, bounds(61_000, 61_000, 61_000), 120_000)).toBe('reset');
    expect(decideWindow(tumbling, bounds(61_000, 61_000, 61_000), 59_999)).toBe('late');
    expect(windowStart(tumbling, 61_000)).toBe(60_000);
  });

  it('starts a new session after a gap or when the session would outgrow the timespan', () => {
    expect(decideWindow(session, bounds(5_000, 0, 5_000), 15_000)).toBe('extend');
    expect(decideWindow(session, bounds(5_000, 0, 5_000), 15_001)).toBe('reset');
    expect(decideWindow(session, bounds(55_000, 0, 55_000), 60_001)).toBe('reset');
  });

  it('takes late session entries only when they keep the gap and the span', () => {
    expect(decideWindow(session, bounds(30_000, 20_000, 30_000), 25_000)).toBe('extend');
    expect(decideWindow(session, bounds(30_000, 20_000, 30_000), 10_000)).toBe('extend');
    expect(decideWindow(session, bounds(30_000, 20_000, 30_000), 9_999)).toBe('late');
    expect(sessionOver(session, 0, 5_000, 15_001)).toBe(true);
    expect(sessionOver(session, 0, 5_000, 15_000)).toBe(false);
  });
});
