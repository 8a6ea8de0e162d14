/** The contract's MAX_LINE_BYTES: one event line on HTTP (and stdin) ingest. */
export const MAX_LINE_BYTES = 1_048_576;

export interface SplitLines {
  /** Non-blank lines up to the first oversized one (a trailing `\r` stripped). */
  readonly lines: string[];
  /** 1 when a line over the limit stopped the split (the lines after it are not read). */
  readonly oversized: number;
}

const NEWLINE = 0x0a;
const CR = 0x0d;
const decoder = new TextDecoder('utf-8');

/** Split an NDJSON body into lines without decoding more than each line, checking sizes first. */
export function splitIngestLines(body: Uint8Array, maxLineBytes: number = MAX_LINE_BYTES): SplitLines {
  const lines: string[] = [];
  let start = 0;
  while (start < body.length) {
    let end = body.indexOf(NEWLINE, start);
    if (end === -1) end = body.length;
    let stop = end;
    if (stop > start && body[stop - 1] === CR) stop -= 1;
    if (stop - start > maxLineBytes) return { lines, oversized: 1 };
    if (stop > start) {
      const line = decoder.decode(body.subarray(start, stop));
      if (line.trim() !== '') lines.push(line);
    }
    start = end + 1;
  }
  return { lines, oversized: 0 };
}
