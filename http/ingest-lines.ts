import { isUtf8 } from 'node:buffer';
import { ByteLines, MAX_LINE_BYTES, OVERSIZED_HEAD_BYTES } from '../protocol/index.js';
import type { RejectedLine } from '../protocol/index.js';

export interface IngestLines {
  /** Non-blank lines up to the first line over MAX_LINE_BYTES, kept as the body's bytes. */
  readonly lines: ByteLines;
  /** Lines rejected before decoding (over the size limit, or not UTF-8); counted as parse errors. */
  readonly rejected: RejectedLine[];
  /** A line over MAX_LINE_BYTES ended the body early: the request answers 413. */
  readonly tooLong: boolean;
}

const LF = 0x0a;
const CR = 0x0d;

/** Blank as the line splitter reads it: only space, tab, CR, form feed, vertical tab and U+FEFF (EF BB BF). */
function isBlank(bytes: Uint8Array, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const b = bytes[i];
    if (b === 0x20 || b === 0x09 || b === CR || b === 0x0c || b === 0x0b) continue;
    if (b === 0xef && bytes[i + 1] === 0xbb && bytes[i + 2] === 0xbf && i + 3 <= end) {
      i += 2;
      continue;
    }
    return false;
  }
  return true;
}

/** A rejected line's report, as the shared splitter words it (its head decoded leniently, cut at a character). */
function rejectedLine(reason: RejectedLine['reason'], body: Uint8Array, start: number, bytes: number, lineNo: number): RejectedLine {
  const head = new TextDecoder().decode(body.subarray(start, start + Math.min(bytes, OVERSIZED_HEAD_BYTES)), { stream: true });
  return { ok: false, reason, bytes, lineNo, head };
}

/**
 * Frame an NDJSON ingest body on its bytes, exactly as the shared line splitter (`splitLines`) frames
 * it, without making a string per line: the lines stay the body's bytes until something reads them.
 * The lines before an oversized line are still ingested (daemon-semantics §3.5); the lines after it
 * are not.
 */
export function splitIngestLines(body: Uint8Array, maxLineBytes = MAX_LINE_BYTES): IngestLines {
  // Buffer's indexOf is a native search; a Uint8Array's is not (several times slower per line).
  const search = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  // Newlines never sit inside a UTF-8 sequence: when the body is UTF-8, so is each line.
  const utf8 = isUtf8(body);
  const bounds: number[] = [];
  const rejected: RejectedLine[] = [];
  let tooLong = false;
  let lineNo = 0;
  for (let start = 0; start < body.length; ) {
    const nl = search.indexOf(LF, start);
    let end = nl === -1 ? body.length : nl;
    lineNo++;
    if (end > start && body[end - 1] === CR) end--;
    const bytes = end - start;
    if (bytes > maxLineBytes) {
      rejected.push(rejectedLine('too_long', body, start, bytes, lineNo));
      tooLong = true;
      break;
    }
    if (bytes > 0) {
      if (!utf8 && !isUtf8(body.subarray(start, end))) rejected.push(rejectedLine('invalid_utf8', body, start, bytes, lineNo));
      else if (!isBlank(body, start, end)) bounds.push(start, end);
    }
    start = nl === -1 ? body.length : nl + 1;
  }
  return { lines: new ByteLines(body, Int32Array.from(bounds)), rejected, tooLong };
}
