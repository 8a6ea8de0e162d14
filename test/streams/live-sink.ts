import { expect } from 'vitest';
import type { LazyLines, LiveSink } from '../../protocol/index.js';

export type TestSink = Omit<LiveSink, 'closed'> & {
  closed: boolean;
  /** Lines it has room for in all (a stalled client once they are taken); may be raised. */
  room: number;
  readonly lines: string[];
  /** Offers that took lines (each a batch's share, counted in one step). */
  offers: number;
  /** The summary record's body (`svc_tap_summary` or `svc_tail_summary`). */
  summary?: Record<string, unknown>;
};

/**
 * A session sink that takes `room` lines, counted as offered like a stream's buffer counts them, and builds
 * what it takes at once (a client that reads), in pieces of `pieceChars` as the HTTP stream writes them.
 */
export function liveSink(room = Infinity, pieceChars = Infinity): TestSink {
  let taken = 0;
  const s: TestSink = {
    room,
    lines: [],
    offers: 0,
    closed: false,
    get full() {
      return s.closed || taken >= s.room;
    },
    push(line: string) {
      return s.pushLines(1, () => ({ text: `${line}\n`, end: 1 })) === 1;
    },
    pushLines(count: number, lines: LazyLines) {
      if (s.closed) return 0;
      const take = Math.min(count, s.room - taken);
      if (take <= 0) return 0;
      taken += take;
      s.offers++;
      for (let at = 0; at < take; ) {
        const piece = lines(at, take, pieceChars);
        expect(piece.end).toBeGreaterThan(at);
        s.lines.push(...piece.text.split('\n').slice(0, -1));
        at = piece.end;
      }
      return take;
    },
    end(summary: string) {
      s.summary = Object.values(JSON.parse(summary) as Record<string, Record<string, unknown>>)[0];
      s.closed = true;
    },
  };
  return s;
}
