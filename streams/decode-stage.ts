import Type from 'typebox';
import { InputFormatSchema, MAX_LINE_BYTES } from '../protocol/index.js';
import type { RejectedLine } from '../protocol/index.js';
import type { DlqWriter } from './dlq-writer.js';
import type { StageContext } from './stage-context.js';

export const kind = 'decode';

export const configSchema = Type.Object({
  format: InputFormatSchema,
  /** Offset of zone-less RFC 3164 timestamps, minutes. */
  syslog_tz_minutes: Type.Integer({ default: 0 }),
});
export type DecodeConfig = Type.Static<typeof configSchema>;

/**
 * Where decoding failures go: lines decode in the detection stage (possibly on a worker thread), and
 * their failures are reported here, on the main thread, in input order.
 */
export interface Decoder {
  /** A line that did not decode: counted and dead-lettered. */
  failed(line: string): void;
  /** Lines rejected before decoding (oversized, not UTF-8): counted as parse errors and dead-lettered. */
  rejected(lines: readonly RejectedLine[]): void;
  /** Resolves once `count` failures can be dead-lettered without loss (back-pressure from the DLQ). */
  room(count: number): Promise<void>;
}

/** A rejected line's DLQ entry holds only its head, so the error says what was cut (and replaced). */
function rejectedError(line: RejectedLine): string {
  const kept = Buffer.byteLength(line.head);
  const cut = kept < line.bytes ? `; original_event holds its first ${kept} bytes` : '';
  return line.reason === 'too_long'
    ? `line exceeds maximum size: ${line.bytes} bytes, limit ${MAX_LINE_BYTES}${cut}`
    : `line is not valid UTF-8 (${line.bytes} bytes; invalid sequences shown as U+FFFD)${cut}`;
}

/**
 * `--input-format` parse errors go to `svc_events_parse_errors_total` and the DLQ. The config itself
 * is applied where lines decode (`DetectSettings`, possibly on a worker thread).
 */
export function create(_config: DecodeConfig, ctx: StageContext, dlq: DlqWriter | undefined): Decoder {
  const errors = ctx.metrics.svc_events_parse_errors_total;
  return {
    failed(line) {
      errors.inc();
      dlq?.write(line, 'parse error');
    },
    rejected(lines) {
      if (lines.length === 0) return;
      errors.inc(lines.length);
      for (const line of lines) dlq?.write(line.head, rejectedError(line));
    },
    room(count) {
      return dlq === undefined ? Promise.resolve() : dlq.reserve(count);
    },
  };
}
