import type { DaemonConfig } from '../protocol/index.js';
import { decodeEvent, decodeLine, parseDuration } from '../protocol/index.js';
import { createTapFanout } from '../streams/index.js';
import type { DetectSettings, StageContext, TapFanout } from '../streams/index.js';

/** The event tap when `daemon.tap.enabled` (`--enable-tap`); it decodes lines as the engine does. */
export function createDaemonTap(config: DaemonConfig, ctx: StageContext, detect: DetectSettings): TapFanout | undefined {
  if (!config.tap.enabled) return undefined;
  // Validated at config load (an unparsable max_duration exits 3 naming the key).
  const maxDurationMs = parseDuration(config.tap.max_duration) as number;
  const decode = (line: string) => {
    const decoded = decodeLine(line, detect.format, { now: ctx.clock.now(), tzOffsetMinutes: detect.syslogTzMinutes });
    return decoded.ok ? decoded.event : undefined;
  };
  // A line that parses as JSON decodes from its parsed value in these formats (a JSON object line, for auto).
  const format = detect.format;
  const decodeJson =
    format === 'json' || format === 'evtx-json' || format === 'auto'
      ? (value: unknown) => {
          const decoded = decodeEvent(value, format);
          return decoded.ok ? decoded.event : undefined;
        }
      : undefined;
  return createTapFanout(
    { max_sessions: config.tap.max_sessions, max_duration_ms: maxDurationMs, buffer_events: config.tap.buffer_events },
    ctx,
    { decode, decodeJson },
  );
}
