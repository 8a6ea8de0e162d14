import type { Chunk, Res } from './handler.js';
import { AbortCallbacks } from './abort-callbacks.js';

/**
 * A response whose adapter sends the head itself, so it holds status and headers (names lowercased)
 * until the first write or the end; also whether it ended and its abort callbacks.
 */
export abstract class HeldHeadRes implements Res {
  protected code = 200;
  protected readonly headers = new Map<string, string>();
  protected ended = false;
  protected readonly aborts = new AbortCallbacks();

  get closed(): boolean {
    return this.ended || this.aborts.aborted;
  }
  get aborted(): boolean {
    return this.aborts.aborted;
  }
  status(code: number): Res {
    this.code = code;
    return this;
  }
  header(name: string, value: string): Res {
    this.headers.set(name.toLowerCase(), value);
    return this;
  }
  onAbort(cb: () => void): void {
    this.aborts.add(cb);
  }
  abstract write(chunk: Chunk): boolean;
  abstract end(body?: Chunk): void;
  abstract onWritable(cb: () => void): void;
}
