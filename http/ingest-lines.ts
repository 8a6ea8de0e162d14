import { splitLines } from '../protocol/index.js';
import type { RejectedLine } from '../protocol/index.js';

export interface IngestLines {
  /** Non-blank lines up to the first line over MAX_LINE_BYTES. */
  readonly lines: string[];
  /** Lines rejected before decoding (over the size limit, or not UTF-8); counted as parse errors. */
  readonly rejected: RejectedLine[];
  /** A line over MAX_LINE_BYTES ended the body early: the request answers 413. */
  readonly tooLong: boolean;
}

/**
 * Frame an NDJSON ingest body with the shared line splitter. The lines before an oversized line
 * are still ingested (daemon-semantics §3.5); the lines after it are not.
 */
export function splitIngestLines(body: Uint8Array, maxLineBytes?: number): IngestLines {
  const lines: string[] = [];
  const rejected: RejectedLine[] = [];
  for (const frame of splitLines(body, maxLineBytes === undefined ? {} : { maxLineBytes })) {
    if (frame.ok) lines.push(frame.line);
    else {
      rejected.push(frame);
      if (frame.reason === 'too_long') return { lines, rejected, tooLong: true };
    }
  }
  return { lines, rejected, tooLong: false };
}
