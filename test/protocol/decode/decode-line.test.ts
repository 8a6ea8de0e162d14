import { describe, expect, it } from 'vitest';
import { decodeLine } from '../../../protocol/decode/index.js';

const syslog = { now: Date.UTC(2026, 1, 20), tzOffsetMinutes: 0 };
const evtx = JSON.stringify({ Event: { System: { EventID: '1', Channel: 'c' }, EventData: { Image: 'a.exe' } } });

describe('decodeLine', () => {
  it('json: decodes objects and reports anything else', () => {
    expect(decodeLine('{"a":1}', 'json', syslog)).toEqual({ ok: true, event: { a: 1 } });
    expect(decodeLine('[1]', 'json', syslog).ok).toBe(false);
    expect(decodeLine('nope', 'json', syslog).ok).toBe(false);
    expect(decodeLine(evtx, 'json', syslog)).toEqual({ ok: true, event: JSON.parse(evtx) as unknown });
  });

  it('evtx-json: flattens evtx events and rejects other objects', () => {
    expect(decodeLine(evtx, 'evtx-json', syslog)).toEqual({ ok: true, event: { EventID: 1, Channel: 'c', Image: 'a.exe' } });
    expect(decodeLine('{"a":1}', 'evtx-json', syslog).ok).toBe(false);
  });

  it('syslog and plain never fail', () => {
    expect(decodeLine('anything', 'syslog', syslog)).toEqual({ ok: true, event: { _raw: 'anything' } });
    expect(decodeLine('{"a":1}', 'plain', syslog)).toEqual({ ok: true, event: { _raw: '{"a":1}' } });
  });

  it('auto: JSON objects as JSON (flattening evtx), syslog lines as syslog, the rest as plain text', () => {
    expect(decodeLine('  {"a":1}', 'auto', syslog)).toEqual({ ok: true, event: { a: 1 } });
    expect(decodeLine(evtx, 'auto', syslog)).toEqual({ ok: true, event: { EventID: 1, Channel: 'c', Image: 'a.exe' } });
    expect(decodeLine('<13>Feb 17 13:40:03 h app: m', 'auto', syslog)).toEqual({
      ok: true,
      event: { timestamp: '2026-02-17T13:40:03.000Z', hostname: 'h', appname: 'app', facility: 'user', severity: 'notice', _raw: 'm' },
    });
    expect(decodeLine('{"a":', 'auto', syslog)).toEqual({ ok: true, event: { _raw: '{"a":' } });
    expect(decodeLine('[1,2]', 'auto', syslog)).toEqual({ ok: true, event: { _raw: '[1,2]' } });
    expect(decodeLine('<b>bold</b>', 'auto', syslog)).toEqual({ ok: true, event: { _raw: '<b>bold</b>' } });
    expect(decodeLine('hello world', 'auto', syslog)).toEqual({ ok: true, event: { _raw: 'hello world' } });
  });
});
