// `sigmad eval`'s unit of work (issue 19 §3): a chunk of whole NDJSON lines as raw bytes → its result
// lines as UTF-8 bytes, the same on the main thread and on a chunk worker. Bytes in and bytes out, so
// the thread that reads and writes never splits, decodes or encodes a line another thread detects.
import type { MatchedRule } from '../../actors/index.js';
import { LineSplitter } from '../../protocol/index.js';
import type { JsonEvent } from '../../protocol/index.js';
import type { BatchDetector, DetectRules } from './detect-batch.js';

/** A line whose matches feed a correlation, and where its detections end in the chunk's output. */
export interface ChunkCorrelation {
  /** Byte offset in `output` right after this line's detection lines. */
  readonly at: number;
  readonly matched: readonly MatchedRule[];
  readonly event: JsonEvent;
}

export interface ChunkResult {
  /** The detection lines, `\n`-terminated, in line then rule order (a buffer of its own: transferable). */
  readonly output: Uint8Array;
  readonly events: number;
  /** Lines that gave no event: not UTF-8, over the length limit, or not decodable. */
  readonly parseErrors: number;
  /** Detection lines in `output`. */
  readonly detections: number;
  readonly correlate: readonly ChunkCorrelation[];
  /**
   * Byte offset in the chunk of a line holding only `{` or `[`: NDJSON turning into pretty-printed
   * objects (see cli/read-events.ts). The result covers the lines before it; the rest of the input
   * must be read as objects.
   */
  readonly prettyAt?: number;
  /** Seconds spent splitting, decoding, evaluating and encoding. */
  readonly seconds: number;
}

/** How pretty-printers open a value: a line holding only `{` or `[`. */
export function opensPrettyValue(line: string): boolean {
  const t = line.trim();
  return t === '{' || t === '[';
}

const LF = 0x0a;

/**
 * Detects the whole lines of `bytes` (the last one may lack its newline at the end of the input).
 * `watchPretty`: JSON input, where a line opening a pretty-printed value ends the chunk's NDJSON.
 */
export function detectChunk(detect: BatchDetector, rules: DetectRules, bytes: Uint8Array, now: number, watchPretty: boolean): ChunkResult {
  const started = performance.now();
  const splitter = new LineSplitter();
  const frames = splitter.push(bytes);
  for (const f of splitter.end()) frames.push(f);
  const lines: string[] = [];
  let rejected = 0;
  let prettyAt: number | undefined;
  for (const frame of frames) {
    if (!frame.ok) rejected++;
    else if (watchPretty && opensPrettyValue(frame.line)) {
      prettyAt = lineStart(bytes, frame.lineNo);
      break;
    } else lines.push(frame.line);
  }
  const batch = detect(rules, lines, now);
  const { texts, textLines } = batch;
  // The texts' bytes are the chunk's output as they are; each correlated line's detections end where main writes its correlation results.
  const correlate: ChunkCorrelation[] = [];
  let t = 0;
  for (const c of batch.correlate) {
    while (t < textLines.length && (textLines[t] as number) <= c.line) t++;
    correlate.push({ at: t === 0 ? 0 : (texts.ends[t - 1] as number) + 1, matched: c.matched, event: c.event });
  }
  return {
    output: texts.bytes,
    events: lines.length - batch.parseErrors.length,
    parseErrors: rejected + batch.parseErrors.length,
    detections: texts.ends.length,
    correlate,
    ...(prettyAt !== undefined ? { prettyAt } : {}),
    seconds: (performance.now() - started) / 1000,
  };
}

/** Byte offset of physical line `lineNo` (1-based) in `bytes`. */
function lineStart(bytes: Uint8Array, lineNo: number): number {
  let at = 0;
  for (let n = 1; n < lineNo; n++) at = bytes.indexOf(LF, at) + 1;
  return at;
}

/** The compiled chunk worker entry (chunk-worker.ts). */
export const CHUNK_WORKER_SCRIPT = new URL('./chunk-worker.js', import.meta.url);
