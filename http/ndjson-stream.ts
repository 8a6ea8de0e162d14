import type { LiveSink } from './facade.js';
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
 * response ends, so a slow client gets whole lines and the summary on both adapters.
 */
export function createNdjsonStream(res: Res, options: NdjsonStreamOptions): NdjsonStream {
  res.status(200).header('content-type', NDJSON_CONTENT_TYPE);
  const pending: string[] = [];
  let head = 0;
  let backedUp = false;
  let ending = false;
  let dropped = 0;

  const flush = (): void => {
    while (head < pending.length) {
      if (res.closed) return;
      const chunk = pending[head] as string;
      head += 1;
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

  /** Write a line now, or queue it behind the ones waiting for the transport. */
  const send = (chunk: string): void => {
    if (backedUp) {
      pending.push(chunk);
      return;
    }
    if (!res.write(chunk)) {
      backedUp = true;
      res.onWritable(flush);
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
    push(line: string): boolean {
      if (res.closed || ending) return false;
      if (backedUp && pending.length - head >= options.maxBufferedLines) {
        dropped += 1;
        return false;
      }
      send(line + '\n');
      return true;
    },
    end(summaryLine: string): void {
      if (res.closed || ending) return;
      ending = true;
      send(summaryLine + '\n');
      if (!backedUp) res.end();
    },
  };
}
