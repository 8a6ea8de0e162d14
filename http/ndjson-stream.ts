import type { LazyLine, LiveSink } from '../protocol/index.js';
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

/**
 * A chunked NDJSON response for live sessions: writes straight through while the transport keeps
 * up, buffers up to `maxBufferedLines` while it is backed up, drops (and counts) beyond that. Every
 * chunk is one whole line, and the summary line is written and drained like the others before the
 * response ends, so a slow client gets whole lines and the summary on both adapters. A lazy line is
 * built when it is written, so the lines queued for a client that reads nothing are never built.
 */
export function createNdjsonStream(res: Res, options: NdjsonStreamOptions): NdjsonStream {
  res.status(200).header('content-type', NDJSON_CONTENT_TYPE);
  const pending: (string | LazyLine)[] = [];
  let head = 0;
  let backedUp = false;
  let ending = false;
  let dropped = 0;
  /** Set while a lazy line is being built; `end` called meanwhile waits for that line (`summaryAfter`). */
  let building = false;
  let summaryAfter: string | undefined;

  const build = (item: string | LazyLine): string | undefined => {
    if (typeof item === 'string') return item;
    building = true;
    try {
      return item();
    } finally {
      building = false;
    }
  };

  const flush = (): void => {
    while (head < pending.length) {
      if (res.closed) return;
      const text = build(pending[head] as string | LazyLine);
      head += 1;
      if (summaryAfter !== undefined) {
        pending.push(summaryAfter);
        summaryAfter = undefined;
      }
      if (text === undefined) continue;
      if (!res.write(text + '\n')) {
        res.onWritable(flush);
        return;
      }
    }
    pending.length = 0;
    head = 0;
    backedUp = false;
    if (ending && !res.closed) res.end();
  };

  /** Write a line now, or queue it behind the ones waiting for the transport. */
  const send = (item: string | LazyLine): void => {
    if (backedUp) {
      pending.push(item);
      return;
    }
    const text = build(item);
    if (text !== undefined && !res.write(text + '\n')) {
      backedUp = true;
      res.onWritable(flush);
    }
    if (summaryAfter !== undefined) {
      const summary = summaryAfter;
      summaryAfter = undefined;
      send(summary);
      if (!backedUp) res.end();
    }
  };

  res.onAbort(() => {
    pending.length = 0;
    head = 0;
    options.onClose();
  });

  return {
    get closed() {
      return res.closed || ending;
    },
    get full() {
      return res.closed || ending || (backedUp && pending.length - head >= options.maxBufferedLines);
    },
    get dropped() {
      return dropped;
    },
    push(line: string | LazyLine): boolean {
      if (res.closed || ending) return false;
      if (backedUp && pending.length - head >= options.maxBufferedLines) {
        dropped += 1;
        return false;
      }
      send(line);
      return true;
    },
    end(summaryLine: string): void {
      if (res.closed || ending) return;
      ending = true;
      // Ended from inside a line being built (a session reaching its limit): after that line.
      if (building) {
        summaryAfter = summaryLine;
        return;
      }
      send(summaryLine);
      if (!backedUp) res.end();
    },
  };
}
