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
  /** Characters of lazy lines built for one write (default `PIECE_CHARS`). */
  readonly pieceChars?: number;
}

/**
 * What one write of a batch's lines builds: when a client stops reading, the transport holds at most
 * this beyond what its socket buffers took, so at most this much of a batch is built for nothing.
 */
export const PIECE_CHARS = 32_768;

/** What waits for the transport: one line or the summary (written whole), or a batch's lines built a piece per write. */
interface Queued {
  /** Lines it counts in the buffer (the summary counts 0). */
  readonly count: number;
  readonly lines: string | LazyLines;
  /** How many of its lines are written (a text's all at once). */
  at: number;
  done: boolean;
}

/**
 * A chunked NDJSON response for live sessions: writes straight through while the transport keeps
 * up, buffers up to `maxBufferedLines` while it is backed up, drops (and counts) beyond that. A
 * batch's share of the buffer is counted in one step, so a batch costs the same whatever its size,
 * and its lines are built as they are written, a piece of about `pieceChars` per write: once the
 * transport backs up, the rest of the batch waits unbuilt, so a client that reads nothing costs the
 * lines its socket buffers took plus one piece, and queued lines are never built at all. Every chunk
 * is whole lines, and the summary line is written and drained like the others before the response
 * ends, so a slow client gets whole lines and the summary on both adapters.
 */
export function createNdjsonStream(res: Res, options: NdjsonStreamOptions): NdjsonStream {
  res.status(200).header('content-type', NDJSON_CONTENT_TYPE);
  // At least one character, so that every piece builds at least one line.
  const pieceChars = Math.max(1, options.pieceChars ?? PIECE_CHARS);
  const pending: Queued[] = [];
  let head = 0;
  /** Lines in `pending` from `head` on not built yet: the buffer's fill, kept as a count. */
  let queued = 0;
  let backedUp = false;
  let ending = false;
  let dropped = 0;
  /** Set while lazy lines are being built; `end` called meanwhile waits for them (`summaryAfter`). */
  let building = false;
  let summaryAfter: string | undefined;

  /** The next chunk of `item` (a text whole, lazy lines a piece); a session ended while building builds no more of it. */
  const piece = (item: Queued): string => {
    if (typeof item.lines === 'string') {
      item.at = item.count;
      item.done = true;
      return item.lines;
    }
    building = true;
    try {
      const built = item.lines(item.at, item.count, pieceChars);
      item.at = summaryAfter === undefined ? built.end : item.count;
      item.done = item.at >= item.count;
      return built.text;
    } finally {
      building = false;
    }
  };

  const queue = (item: Queued): void => {
    pending.push(item);
    queued += item.count - item.at;
  };

  const flush = (): void => {
    while (head < pending.length) {
      if (res.closed) return;
      const item = pending[head] as Queued;
      const before = item.at;
      const chunk = piece(item);
      queued -= item.at - before;
      if (item.done) head += 1;
      if (summaryAfter !== undefined) {
        queue({ count: 0, lines: summaryAfter + '\n', at: 0, done: false });
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

  /** Write now, a piece at a time, or queue behind what waits for the transport. */
  const send = (item: Queued): void => {
    if (backedUp) return queue(item);
    while (!item.done) {
      const chunk = piece(item);
      if (chunk !== '' && !res.write(chunk)) {
        backedUp = true;
        if (!item.done) queue(item);
        res.onWritable(flush);
        break;
      }
    }
    if (summaryAfter !== undefined) {
      const summary = summaryAfter;
      summaryAfter = undefined;
      send({ count: 0, lines: summary + '\n', at: 0, done: false });
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
    if (take > 0) send({ count: take, lines, at: 0, done: false });
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
      send({ count: 0, lines: summaryLine + '\n', at: 0, done: false });
      if (!backedUp) res.end();
    },
  };
}
