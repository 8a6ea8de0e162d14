import { describe, expect, it } from 'vitest';
import { decodeSyslog, parseSyslogTz } from '../../../protocol/decode/index.js';

const clock = { now: Date.UTC(2026, 1, 20, 12, 0, 0), tzOffsetMinutes: 0 };

describe('decodeSyslog (RFC 5424)', () => {
  it('decodes header fields, structured data and the message', () => {
    const line =
      '<165>1 2003-10-11T22:14:15.003Z mymachine.example.com evntslog 77 ID47 ' +
      '[exampleSDID@32473 iut="3" eventSource="Application"][meta seq="1"] An application event';
    expect(decodeSyslog(line, clock)).toEqual({
      timestamp: '2003-10-11T22:14:15.003Z',
      hostname: 'mymachine.example.com',
      appname: 'evntslog',
      procid: '77',
      msgid: 'ID47',
      facility: 'local4',
      severity: 'notice',
      'exampleSDID@32473.iut': '3',
      'exampleSDID@32473.eventSource': 'Application',
      'meta.seq': '1',
      _raw: 'An application event',
    });
  });

  it('leaves out nil fields and an empty message', () => {
    expect(decodeSyslog('<34>1 - - - - - -', clock)).toEqual({ facility: 'auth', severity: 'crit' });
  });

  it('unescapes structured data values', () => {
    const event = decodeSyslog('<13>1 - h a - - [x k="q\\"b\\\\s\\]e\\n"] m', clock);
    expect(event['x.k']).toBe('q"b\\s]e\\n');
  });

  it('strips a byte-order mark before the message unless told not to', () => {
    const line = '<13>1 - h a - - - \ufeffhello';
    expect(decodeSyslog(line, clock)['_raw']).toBe('hello');
    expect(decodeSyslog(line, { ...clock, stripBom: false })['_raw']).toBe('\ufeffhello');
  });

  it('uses a JSON object message as the event and adds header fields only where absent', () => {
    const line = '<14>1 2026-01-01T00:00:00Z web nginx 12 - [req id="7"] {"CommandLine":"whoami","syslog_hostname":"own"}';
    expect(decodeSyslog(line, clock)).toEqual({
      CommandLine: 'whoami',
      syslog_hostname: 'own',
      syslog_timestamp: '2026-01-01T00:00:00Z',
      syslog_appname: 'nginx',
      syslog_procid: '12',
      syslog_facility: 'user',
      syslog_severity: 'info',
      'sd.req.id': '7',
    });
  });

  it('falls back to BSD parsing when structured data is malformed', () => {
    const event = decodeSyslog('<13>1 - h a - - [broken message', clock);
    expect(event['facility']).toBe('user');
    expect(event['_raw']).toBe('1 - h a - - [broken message');
  });
});

describe('decodeSyslog (RFC 3164)', () => {
  it('decodes timestamp, hostname, tag with pid and message', () => {
    expect(decodeSyslog('<38>Feb  5 13:40:03 host1 sshd[4242]: Failed password for root', clock)).toEqual({
      timestamp: '2026-02-05T13:40:03.000Z',
      hostname: 'host1',
      appname: 'sshd',
      procid: '4242',
      facility: 'auth',
      severity: 'info',
      _raw: 'Failed password for root',
    });
  });

  it('accepts a tag without hostname and without pid', () => {
    expect(decodeSyslog('<13>Feb 17 13:40:03 cron: job done', clock)).toMatchObject({ appname: 'cron', _raw: 'job done' });
    expect(decodeSyslog('<13>Feb 17 13:40:03 cron: job done', clock)).not.toHaveProperty('hostname');
  });

  it('infers the year from now, across the December/January rollover', () => {
    const jan = { now: Date.UTC(2026, 0, 2), tzOffsetMinutes: 0 };
    const dec = { now: Date.UTC(2025, 11, 30), tzOffsetMinutes: 0 };
    expect(decodeSyslog('<13>Dec 31 23:59:59 h a: m', jan)['timestamp']).toBe('2025-12-31T23:59:59.000Z');
    expect(decodeSyslog('<13>Jan  1 00:00:01 h a: m', dec)['timestamp']).toBe('2026-01-01T00:00:01.000Z');
  });

  it('reads zone-less timestamps in the configured zone, with fractional seconds', () => {
    const ist = { ...clock, tzOffsetMinutes: 330 };
    expect(decodeSyslog('<13>Feb 17 13:40:03.673 h a: m', ist)['timestamp']).toBe('2026-02-17T08:10:03.673Z');
  });

  it('accepts an RFC 3339 timestamp in a BSD-style line', () => {
    expect(decodeSyslog('<13>2026-02-17T13:40:03+01:00 h app: m', clock)).toMatchObject({
      timestamp: '2026-02-17T13:40:03+01:00',
      hostname: 'h',
      appname: 'app',
    });
  });

  it('keeps a line without recognisable header as the message', () => {
    const line = '172.16.5.10 6705: Feb 17 13:40:03.673: %PARSER-5-CFGLOG_LOGGEDCMD: User:admin  logged command:no access-session port-control';
    expect(decodeSyslog(line, clock)).toEqual({ _raw: line });
  });

  it('ignores an out-of-range priority', () => {
    expect(decodeSyslog('<999>hello', clock)).toEqual({ _raw: '<999>hello' });
  });
});

describe('parseSyslogTz', () => {
  it('accepts ±HH:MM and the UTC spellings and rejects anything else', () => {
    expect(parseSyslogTz('+05:30')).toBe(330);
    expect(parseSyslogTz('-08:00')).toBe(-480);
    for (const utc of ['UTC', 'utc', 'Z', '+00:00']) expect(parseSyslogTz(utc)).toBe(0);
    for (const bad of ['+0530', 'CET', '+24:00', '05:30', '']) expect(parseSyslogTz(bad)).toBeUndefined();
  });
});
