import Type from 'typebox';
import { decodeLine, InputFormatSchema } from '../protocol/decode/index.js';
import type { JsonEvent } from '../protocol/decode/index.js';
import type { DlqWriter } from './dlq-writer.js';
import type { StageContext } from './stage-context.js';

export const kind = 'decode';

export const configSchema = Type.Object({
  format: InputFormatSchema,
  /** Offset of zone-less RFC 3164 timestamps, minutes. */
  syslog_tz_minutes: Type.Integer({ default: 0 }),
});
export type DecodeConfig = Type.Static<typeof configSchema>;

export interface Decoder {
  /** The event, or undefined for a parse error (already counted and dead-lettered). */
  decode(line: string): JsonEvent | undefined;
  /** Lines rejected before decoding (oversized, not UTF-8): counted as parse errors. */
  rejected(count: number): void;
}

/** `--input-format` per line; parse errors go to `svc_events_parse_errors_total` and the DLQ. */
export function create(config: DecodeConfig, ctx: StageContext, dlq: DlqWriter | undefined): Decoder {
  const errors = ctx.metrics.svc_events_parse_errors_total;
  return {
    decode(line) {
      const decoded = decodeLine(line, config.format, { now: ctx.clock.now(), tzOffsetMinutes: config.syslog_tz_minutes });
      if (decoded.ok) return decoded.event;
      errors.inc();
      dlq?.write(line, 'parse error');
      return undefined;
    },
    rejected(count) {
      if (count > 0) errors.inc(count);
    },
  };
}
