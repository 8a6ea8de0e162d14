/** The parts of a syslog line (RFC 5424 or RFC 3164); a part the line did not carry is undefined. */
export interface SyslogHeader {
  facility?: string;
  severity?: string;
  /** RFC 3339. */
  timestamp?: string;
  hostname?: string;
  appname?: string;
  procid?: string;
  msgid?: string;
  /** `[sd-id param="value"]` blocks in order. */
  structuredData: { readonly id: string; readonly params: [string, string][] }[];
  message: string;
}

export interface SyslogClock {
  /** Current time (epoch ms): RFC 3164 timestamps carry no year. */
  readonly now: number;
  /** Offset of zone-less RFC 3164 timestamps from UTC, in minutes (`--syslog-tz`). */
  readonly tzOffsetMinutes: number;
}

const FACILITIES = [
  'kern', 'user', 'mail', 'daemon', 'auth', 'syslog', 'lpr', 'news', 'uucp', 'cron', 'authpriv', 'ftp',
  'ntp', 'security', 'console', 'solaris-cron', 'local0', 'local1', 'local2', 'local3', 'local4', 'local5',
  'local6', 'local7',
] as const;
const SEVERITIES = ['emerg', 'alert', 'crit', 'err', 'warning', 'notice', 'info', 'debug'] as const;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

const PRI = /^<(\d{1,3})>/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/i;
const BSD_TIME = /^([A-Z][a-z]{2}) {1,2}(\d{1,2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?(?= |$)/;
const TAG = /^([^\s[\]:]+)(?:\[([^\]]*)\])?:(?: |$)/;

/** Splits off the next space-separated token (RFC 5424 header fields). */
function token(s: string): [string, string] {
  const sp = s.indexOf(' ');
  return sp < 0 ? [s, ''] : [s.slice(0, sp), s.slice(sp + 1)];
}

const nil = (v: string): string | undefined => (v === '-' || v === '' ? undefined : v);

const isoTimestamp = (text: string): string | undefined => (RFC3339.test(text) ? text : undefined);

/** `[id k="v" ...][...]` at the start of `s`; returns the blocks and the rest, or undefined if malformed. */
function parseStructuredData(s: string): [SyslogHeader['structuredData'], string] | undefined {
  const blocks: SyslogHeader['structuredData'] = [];
  let i = 0;
  while (s[i] === '[') {
    i++;
    let id = '';
    while (i < s.length && s[i] !== ' ' && s[i] !== ']') id += s[i++];
    const params: [string, string][] = [];
    while (s[i] === ' ') {
      i++;
      const eq = s.indexOf('="', i);
      if (eq < 0) return undefined;
      const name = s.slice(i, eq);
      i = eq + 2;
      let value = '';
      while (i < s.length && s[i] !== '"') {
        // RFC 5424 §6.3.3: only `"`, `\` and `]` are escaped; any other backslash is literal.
        if (s[i] === '\\' && (s[i + 1] === '"' || s[i + 1] === '\\' || s[i + 1] === ']')) i++;
        value += s[i++];
      }
      if (s[i] !== '"') return undefined;
      i++;
      params.push([name, value]);
    }
    if (s[i] !== ']' || id === '') return undefined;
    i++;
    blocks.push({ id, params });
  }
  return [blocks, s.slice(i)];
}

function rfc5424(rest: string, header: SyslogHeader): SyslogHeader | undefined {
  const [ts, r1] = token(rest);
  const [host, r2] = token(r1);
  const [app, r3] = token(r2);
  const [proc, r4] = token(r3);
  const [msgid, r5] = token(r4);
  let sd: SyslogHeader['structuredData'] = [];
  let message: string;
  if (r5.startsWith('-')) {
    message = r5.slice(1);
  } else {
    const parsed = parseStructuredData(r5);
    if (parsed === undefined) return undefined;
    [sd, message] = parsed;
  }
  return {
    ...header,
    timestamp: isoTimestamp(ts),
    hostname: nil(host),
    appname: nil(app),
    procid: nil(proc),
    msgid: nil(msgid),
    structuredData: sd,
    message: message.startsWith(' ') ? message.slice(1) : message,
  };
}

/** `Mmm dd hh:mm:ss` in the configured zone, year inferred from `now` (a December line read in January is last year's). */
function bsdTimestamp(m: RegExpExecArray, clock: SyslogClock): string | undefined {
  const month = MONTHS.indexOf(m[1] ?? '');
  if (month < 0) return undefined;
  const offsetMs = clock.tzOffsetMinutes * 60_000;
  const localNow = new Date(clock.now + offsetMs);
  let year = localNow.getUTCFullYear();
  const nowMonth = localNow.getUTCMonth();
  if (month === 11 && nowMonth === 0) year--;
  else if (month === 0 && nowMonth === 11) year++;
  const ms = Number((m[6] ?? '0').padEnd(3, '0').slice(0, 3));
  const utc = Date.UTC(year, month, Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5]), ms) - offsetMs;
  return Number.isNaN(utc) ? undefined : new Date(utc).toISOString();
}

function rfc3164(rest: string, header: SyslogHeader, clock: SyslogClock): SyslogHeader {
  let s = rest;
  const out: SyslogHeader = { ...header };
  const bsd = BSD_TIME.exec(s);
  if (bsd) {
    const ts = bsdTimestamp(bsd, clock);
    if (ts !== undefined) out.timestamp = ts;
    s = s.slice(bsd[0].length).replace(/^ /, '');
  } else {
    // Many senders put an RFC 3339 timestamp into an otherwise BSD-style line.
    const [first, after] = token(s);
    const ts = isoTimestamp(first);
    if (ts !== undefined) {
      out.timestamp = ts;
      s = after;
    }
  }
  if (out.timestamp !== undefined) {
    const [host, after] = token(s);
    if (host !== '' && !TAG.test(s) && !host.includes('[')) {
      out.hostname = host;
      s = after;
    }
  }
  const tag = TAG.exec(s);
  if (tag) {
    out.appname = tag[1] ?? '';
    if (tag[2] !== undefined && tag[2] !== '') out.procid = tag[2];
    s = s.slice(tag[0].length);
  }
  out.message = s;
  return out;
}

/**
 * Lenient syslog header parsing: `<PRI>1 ...` is RFC 5424, any other line RFC 3164 with whatever
 * parts it has (PRI, timestamp, hostname and tag are all optional). Never fails: what cannot be
 * recognised stays in `message`.
 */
export function parseSyslogHeader(line: string, clock: SyslogClock): SyslogHeader {
  const header: SyslogHeader = { structuredData: [], message: line };
  let rest = line;
  const pri = PRI.exec(line);
  if (pri) {
    const value = Number(pri[1]);
    if (value <= 191) {
      header.facility = FACILITIES[value >> 3] as string;
      header.severity = SEVERITIES[value & 7] as string;
      rest = line.slice(pri[0].length);
    }
  }
  if (header.facility !== undefined && /^[1-9]\d{0,2} /.test(rest)) {
    const parsed = rfc5424(token(rest)[1], header);
    if (parsed !== undefined) return parsed;
  }
  return rfc3164(rest, header, clock);
}

/** `--syslog-tz`: `±HH:MM`, `UTC`, `utc` or `Z` → minutes east of UTC, or undefined when invalid. */
export function parseSyslogTz(text: string): number | undefined {
  if (text === 'UTC' || text === 'utc' || text === 'Z') return 0;
  const m = /^([+-])(\d{2}):(\d{2})$/.exec(text);
  if (!m) return undefined;
  const hours = Number(m[2]);
  const minutes = Number(m[3]);
  if (hours > 23 || minutes > 59) return undefined;
  return (m[1] === '-' ? -1 : 1) * (hours * 60 + minutes);
}
