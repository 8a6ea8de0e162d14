import type { DecodeResult, InputFormat } from './decoded-event.js';
import { decodeEvent } from './evtx-json.js';
import { decodeJsonLine } from './json-line.js';
import { decodePlain } from './plain.js';
import { decodeSyslog, hasSyslogFields, type SyslogOptions } from './syslog.js';

/**
 * One input line → one event in the configured `--input-format` (daemon-semantics §3.3). `auto`: a
 * line starting with `{` that is a JSON object is JSON (evtx-shaped objects are flattened); else a line
 * starting with `<` that yields syslog fields is syslog; anything else is plain text. Only `json` and
 * `evtx-json` can fail.
 */
export function decodeLine(line: string, format: InputFormat, syslog: SyslogOptions): DecodeResult {
  switch (format) {
    case 'json':
    case 'evtx-json': {
      const parsed = decodeJsonLine(line);
      return parsed.ok ? decodeEvent(parsed.event, format) : parsed;
    }
    case 'syslog':
      return { ok: true, event: decodeSyslog(line, syslog) };
    case 'plain':
      return { ok: true, event: decodePlain(line) };
    case 'auto': {
      const trimmed = line.trimStart();
      if (trimmed.startsWith('{')) {
        const parsed = decodeJsonLine(trimmed);
        if (parsed.ok) return decodeEvent(parsed.event, 'auto');
      }
      if (trimmed.startsWith('<')) {
        const event = decodeSyslog(trimmed, syslog);
        if (hasSyslogFields(event)) return { ok: true, event };
      }
      return { ok: true, event: decodePlain(line) };
    }
    default: {
      const never: never = format;
      return { ok: false, error: `unknown input format '${String(never)}'` };
    }
  }
}
