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
 * up, buffers up to `maxBufferedLines` while it is backed up, drops (and counts) beyond that.
 */
export function createNdjsonStream(res: Res, options: NdjsonStreamOptions): NdjsonStream {
  res.status(200).header('content-type', NDJSON_CONTENT_TYPE);
  const pending: string[] = [];
  let head = 0;
  let backedUp = false;
  let summary: string | undefined;
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
    if (summary !== undefined && !res.closed) res.end(summary);
  };

  res.onAbort(() => {
    pending.length = 0;
    head = 0;
    options.onClose();
  });

  return {
    get closed() {
      return res.closed || summary !== undefined;
    },
    get full() {
      return res.closed || summary !== undefined || (backedUp && pending.length - head >= options.maxBufferedLines);
    },
    get dropped() {
      return dropped;
    },
    push(line: string): boolean {
      if (res.closed || summary !== undefined) return false;
      if (backedUp) {
        if (pending.length - head >= options.maxBufferedLines) {
          dropped += 1;
          return false;
        }
        pending.push(line + '\n');
        return true;
      }
      if (!res.write(line + '\n')) {
        backedUp = true;
        res.onWritable(flush);
      }
      return true;
    },
    end(summaryLine: string): void {
      if (res.closed || summary !== undefined) return;
      summary = summaryLine + '\n';
      if (!backedUp) res.end(summary);
    },
  };
}
