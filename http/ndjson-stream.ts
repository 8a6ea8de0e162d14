import type { LazyLines, LiveSink } from '../protocol/index.js';
import type { Res } from './handler.js';
import { NDJSON_CONTENT_TYPE } from './respond.js';

export interface NdjsonStream extends LiveSink {
  /** Lines dropped because the per-session buffer was full. */
  readonly dropped: number;
}

export interface NdjsonStreamOptions {
  /** Lines held while the client is slow; beyond it lines are dropped (lossy, never blocking). */
  readonly maxBufferedLines: number;
  /** Teardown when the client goes away before `end`. */
  readonly onClose: () => void;
}

/** What waits for the transport: one line, or a batch's lines built when written (the summary counts 0). */
interface Queued {
  readonly count: number;
  readonly lines: string | LazyLines;
}

/**
 * A chunked NDJSON response for live sessions: writes straight through while the transport keeps
 * up, buffers up to `maxBufferedLines` while it is backed up, drops (and counts) beyond that. A
 * batch's lines are one chunk (one write), and its share of the buffer is counted in one step, so a
 * batch costs the same whatever its size. Every chunk is whole lines, and the summary line is written
 * and drained like the others before the response ends, so a slow client gets whole lines and the
 * summary on both adapters. Lazy lines are built when written, so the lines queued for a client that
 * reads nothing are never built.
 */
export function createNdjsonStream(res: Res, options: NdjsonStreamOptions): NdjsonStream {
  res.status(200).header('content-type', NDJSON_CONTENT_TYPE);
  const pending: Queued[] = [];
  let head = 0;
  /** Lines in `pending` from `head` on: the buffer's fill, kept as a count. */
  let queued = 0;
  let backedUp = false;
  let ending = false;
  let dropped = 0;
  /** Set while lazy lines are being built; `end` called meanwhile waits for them (`summaryAfter`). */
  let building = false;
  let summaryAfter: string | undefined;

  const build = (item: Queued): string => {
    if (typeof item.lines === 'string') return item.lines;
    building = true;
    try {
      return item.lines(item.count);
    } finally {
      building = false;
    }
  };

  const flush = (): void => {
    while (head < pending.length) {
      if (res.closed) return;
      const item = pending[head] as Queued;
      head += 1;
      queued -= item.count;
      const chunk = build(item);
      if (summaryAfter !== undefined) {
        pending.push({ count: 0, lines: summaryAfter + '\n' });
        summaryAfter = undefined;
      }
      if (chunk === '') continue;
      if (!res.write(chunk)) {
        res.onWritable(flush);
        return;
      }
    }
    pending.length = 0;
    head = 0;
    backedUp = false;
    if (ending && !res.closed) res.end();
  };

  /** Write now, or queue behind what waits for the transport. */
  const send = (item: Queued): void => {
    if (backedUp) {
      pending.push(item);
      queued += item.count;
      return;
    }
    const chunk = build(item);
    if (chunk !== '' && !res.write(chunk)) {
      backedUp = true;
      res.onWritable(flush);
    }
    if (summaryAfter !== undefined) {
      const summary = summaryAfter;
      summaryAfter = undefined;
      send({ count: 0, lines: summary + '\n' });
      if (!backedUp) res.end();
    }
  };

  /** Lines the session can take now without dropping. */
  const room = (): number => (res.closed || ending ? 0 : backedUp ? Math.max(0, options.maxBufferedLines - queued) : Infinity);

  /** Take what there is room for of `count` lines; the rest is dropped. */
  const offer = (count: number, lines: string | LazyLines): number => {
    if (res.closed || ending) return 0;
    const take = Math.min(count, room());
    dropped += count - take;
    if (take > 0) send({ count: take, lines });
    return take;
  };

  res.onAbort(() => {
    pending.length = 0;
    head = 0;
    queued = 0;
    options.onClose();
  });

  return {
    get closed() {
      return res.closed || ending;
    },
    get full() {
      return room() === 0;
    },
    get dropped() {
      return dropped;
    },
    push: (line: string): boolean => offer(1, line + '\n') === 1,
    pushLines: offer,
    end(summaryLine: string): void {
      if (res.closed || ending) return;
      ending = true;
      // Ended from inside lines being built (a session reaching its limit): after those lines.
      if (building) {
        summaryAfter = summaryLine;
        return;
      }
      send({ count: 0, lines: summaryLine + '\n' });
      if (!backedUp) res.end();
    },
  };
}
