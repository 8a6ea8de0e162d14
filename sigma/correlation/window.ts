export type WindowMode = 'sliding' | 'tumbling' | 'session';

/**
 * What a new entry at `ts` does to a group's window: `extend` it (insert, then trim), `reset` it (clear,
 * then insert) or arrive `late` (discard: it lies before the window that the group has already moved to).
 */
export type WindowDecision = 'extend' | 'reset' | 'late';

/** The parts of a group's window a decision needs. `mark` is the group's latest time, -1 before any. */
export interface WindowBounds {
  readonly mark: number;
  readonly earliest: number | undefined;
  readonly latest: number | undefined;
}

export interface WindowShape {
  readonly window: WindowMode;
  readonly timespanMs: number;
  readonly gapMs: number;
}

/** Epoch-aligned bucket of a tumbling window. */
function bucketOf(ts: number, timespanMs: number): number {
  return Math.floor(ts / timespanMs);
}

/**
 * Sliding: the window is the closed interval [mark − timespan, mark]; anything older is late.
 * Tumbling: a later bucket resets, an earlier one is late. Session: a gap above `gap` or a span above
 * `timespan` starts a new session; a late entry that would break either is discarded.
 */
export function decideWindow(w: WindowShape, b: WindowBounds, ts: number): WindowDecision {
  if (b.mark < 0) return 'extend';
  switch (w.window) {
    case 'sliding':
      return ts < b.mark - w.timespanMs ? 'late' : 'extend';
    case 'tumbling': {
      const current = bucketOf(b.mark, w.timespanMs);
      const bucket = bucketOf(ts, w.timespanMs);
      return bucket > current ? 'reset' : bucket < current ? 'late' : 'extend';
    }
    case 'session': {
      if (b.earliest === undefined || b.latest === undefined) return ts < b.mark - w.timespanMs ? 'late' : 'extend';
      if (ts >= b.latest) return ts - b.latest > w.gapMs || ts - b.earliest > w.timespanMs ? 'reset' : 'extend';
      if (ts >= b.earliest) return 'extend';
      return b.earliest - ts > w.gapMs || b.latest - ts > w.timespanMs ? 'late' : 'extend';
    }
    default: {
      const never: never = w.window;
      return never;
    }
  }
}

/**
 * The oldest time still inside the window once the group's time has advanced to `mark`; entries
 * before it are dropped. Session windows end as a whole (`sessionOver`), never trim from the front.
 */
export function windowStart(w: WindowShape, mark: number): number {
  switch (w.window) {
    case 'sliding':
      return mark - w.timespanMs;
    case 'tumbling':
      return bucketOf(mark, w.timespanMs) * w.timespanMs;
    case 'session':
      return -Infinity;
    default: {
      const never: never = w.window;
      return never;
    }
  }
}

/** Whether a session with these bounds has ended by time `now`. */
export function sessionOver(w: WindowShape, earliest: number, latest: number, now: number): boolean {
  return now - latest > w.gapMs || now - earliest > w.timespanMs;
}
