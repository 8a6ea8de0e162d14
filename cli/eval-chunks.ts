// The input of `sigmad eval` as chunks of whole lines (issue 19 §3): read in large pieces and cut at the
// last newline, as bytes, so that the thread that reads never decodes a line. A line longer than the
// limit is never held whole: it becomes a `skipped` marker and its bytes are dropped as they arrive.
import { openSync, closeSync, readSync } from 'node:fs';
import { MAX_LINE_BYTES } from '../protocol/index.js';

/** Bytes read at a time, and about the size of a chunk: a few milliseconds of detection. */
export const CHUNK_BYTES = 256 * 1024;

/** Whole lines (the last chunk's last line may lack its newline), or one line over the limit, dropped. */
export type ChunkItem = Uint8Array | { readonly skipped: true };

const LF = 0x0a;
const SKIPPED: ChunkItem = { skipped: true };

/** Fills `into` from the input; 0 at its end. */
type Read = (into: Uint8Array) => number | Promise<number>;

/** The pieces of `path` read with `readSync` (a regular file: page-cache reads do not block for long). */
export function fileReader(path: string): { read: Read; close(): void } {
  const fd = openSync(path, 'r');
  return { read: (into) => readSync(fd, into), close: () => closeSync(fd) };
}

/** Reads from an async byte stream (stdin). */
export function streamReader(stream: AsyncIterable<Uint8Array | string>): Read {
  const it = stream[Symbol.asyncIterator]();
  let left: Uint8Array = new Uint8Array(0);
  return async (into) => {
    while (left.length === 0) {
      const next = await it.next();
      if (next.done === true) return 0;
      left = typeof next.value === 'string' ? Buffer.from(next.value) : next.value;
    }
    const n = Math.min(into.length, left.length);
    into.set(left.subarray(0, n));
    left = left.subarray(n);
    return n;
  };
}

/**
 * Line-aligned chunks of the input, each in a buffer of its own (about `chunkBytes`, more when a line
 * is longer). A line over `maxLine` bytes (a trailing `\r` aside, as LineSplitter counts) is reported
 * once as `skipped`, whether or not its newline ever comes.
 */
export async function* lineChunks(read: Read, chunkBytes = CHUNK_BYTES, maxLine = MAX_LINE_BYTES): AsyncGenerator<ChunkItem> {
  let carry: Uint8Array = new Uint8Array(0);
  let skipping = false;
  for (;;) {
    // A long line doubles the read instead of adding a chunk to it: reading it stays linear.
    const buf = new Uint8Array(carry.length + Math.max(chunkBytes, carry.length));
    buf.set(carry);
    const n = await read(buf.subarray(carry.length));
    if (n === 0) break;
    let data = buf.subarray(0, carry.length + n);
    carry = new Uint8Array(0);
    if (skipping) {
      const nl = data.indexOf(LF);
      if (nl === -1) continue;
      skipping = false;
      data = data.subarray(nl + 1);
    }
    const last = data.lastIndexOf(LF);
    if (last !== -1) yield data.subarray(0, last + 1);
    const tail = data.subarray(last + 1);
    // One byte of slack: a trailing `\r` may belong to a `\r\n` terminator.
    if (tail.length > maxLine + 1) {
      skipping = true;
      yield SKIPPED;
    } else carry = tail.slice();
  }
  if (carry.length > 0) yield carry;
}
