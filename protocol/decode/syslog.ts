import { isJsonObject, type JsonEvent } from './decoded-event.js';
import { parseSyslogHeader, type SyslogClock, type SyslogHeader } from './syslog-header.js';

export interface SyslogOptions extends SyslogClock {
  /** Strip a byte-order mark before the message (`--syslog-strip-bom`, default true). */
  readonly stripBom?: boolean;
}

const HEADER_FIELDS = ['timestamp', 'hostname', 'appname', 'procid', 'msgid', 'facility', 'severity'] as const;

function parseJsonObject(text: string): JsonEvent | undefined {
  if (!text.startsWith('{')) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return isJsonObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Sets `key` unless the event already has it (a JSON body's own fields win over header fields). */
function setIfAbsent(event: JsonEvent, key: string, value: string | undefined): void {
  if (value !== undefined && !Object.hasOwn(event, key)) event[key] = value;
}

/**
 * One syslog line → an event (daemon-semantics §3.3). A JSON-object message becomes the event, with
 * header fields added as `syslog_<name>` and `sd.<id>.<param>` where absent; any other message gives a
 * flat event of the header fields, `<id>.<param>` and `_raw` (the trimmed message). Never fails.
 */
export function decodeSyslog(line: string, options: SyslogOptions): JsonEvent {
  const header = parseSyslogHeader(line, options);
  // RFC 5424 messages may start with a UTF-8 BOM; JS `trim()` would drop it too, so keep it explicitly.
  const raw = header.message;
  const keptBom = options.stripBom === false && raw.startsWith('\ufeff') ? '\ufeff' : '';
  const message = keptBom + raw.slice(raw.startsWith('\ufeff') ? 1 : 0).trim();
  const body = parseJsonObject(message);
  if (body !== undefined) {
    const event: JsonEvent = { ...body };
    addHeader(event, header, 'syslog_', 'sd.');
    return event;
  }
  const event: JsonEvent = {};
  addHeader(event, header, '', '');
  if (message !== '') event['_raw'] = message;
  return event;
}

function addHeader(event: JsonEvent, header: SyslogHeader, fieldPrefix: string, sdPrefix: string): void {
  for (const name of HEADER_FIELDS) setIfAbsent(event, fieldPrefix + name, header[name]);
  for (const { id, params } of header.structuredData) {
    for (const [param, value] of params) setIfAbsent(event, `${sdPrefix}${id}.${param}`, value);
  }
}

/** Whether a decoded syslog event carries anything beyond `_raw` (the `auto` format's syslog test). */
export function hasSyslogFields(event: JsonEvent): boolean {
  return Object.keys(event).some((key) => key !== '_raw');
}
