import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeSyslog, parseSyslogHeader } from '../../../protocol/decode/index.js';

const clock = { now: Date.UTC(2026, 5, 15), tzOffsetMinutes: 0 };
const FACILITY_NAMES = ['kern', 'user', 'mail', 'daemon', 'auth', 'syslog', 'lpr', 'news', 'uucp', 'cron', 'authpriv', 'ftp'];

const headerToken = fc.stringMatching(/^[A-Za-z0-9._@-]{1,12}$/).filter((s) => s !== '-');
const nilable = fc.option(headerToken, { nil: undefined });
const sdName = fc.stringMatching(/^[A-Za-z0-9_@.]{1,8}$/);
const sdValue = fc.string({ unit: fc.constantFrom('a', ' ', '"', '\\', ']', '=', '[', 'é'), maxLength: 8 });
const sdArb = fc.uniqueArray(
  fc.record({ id: sdName, params: fc.uniqueArray(fc.tuple(sdName, sdValue), { maxLength: 3, selector: ([k]) => k }) }),
  { maxLength: 3, selector: (b) => b.id },
);
const messageArb = fc.string({ unit: fc.constantFrom('a', 'b', ' ', ':', '[', '"', 'é'), maxLength: 20 });
const escape = (v: string): string => v.replace(/["\\\]]/g, (c) => `\\${c}`);

describe('syslog parser properties', () => {
  it('reads back every field of a generated RFC 5424 line', () => {
    fc.assert(
      fc.property(
        fc.record({
          facility: fc.integer({ min: 0, max: FACILITY_NAMES.length - 1 }),
          severity: fc.integer({ min: 0, max: 7 }),
          timestamp: fc.option(fc.date({ min: new Date(0), max: new Date(4e12), noInvalidDate: true }).map((d) => d.toISOString()), { nil: undefined }),
          hostname: nilable,
          appname: nilable,
          procid: nilable,
          msgid: nilable,
          sd: sdArb,
          message: messageArb,
        }),
        (h) => {
          const sd = h.sd.length === 0 ? '-' : h.sd.map((b) => `[${b.id}${b.params.map(([k, v]) => ` ${k}="${escape(v)}"`).join('')}]`).join('');
          const fields = [h.timestamp, h.hostname, h.appname, h.procid, h.msgid].map((f) => f ?? '-').join(' ');
          const line = `<${h.facility * 8 + h.severity}>1 ${fields} ${sd}${h.message === '' ? '' : ` ${h.message}`}`;
          const parsed = parseSyslogHeader(line, clock);
          expect(parsed).toMatchObject({
            facility: FACILITY_NAMES[h.facility],
            timestamp: h.timestamp,
            hostname: h.hostname,
            appname: h.appname,
            procid: h.procid,
            msgid: h.msgid,
            message: h.message,
          });
          expect(parsed.structuredData).toEqual(h.sd);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('reads back timestamp, hostname and tag of a generated RFC 3164 line', () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date(Date.UTC(2026, 0, 1)), max: new Date(Date.UTC(2026, 11, 31, 23, 59, 59)), noInvalidDate: true }),
        headerToken.filter((s) => !s.includes('[') && !s.includes(':')),
        fc.stringMatching(/^[A-Za-z0-9_.-]{1,10}$/),
        fc.option(fc.integer({ min: 1, max: 99999 }), { nil: undefined }),
        messageArb.map((m) => m.trim()),
        (date, host, app, pid, message) => {
          const d = new Date(Math.floor(date.getTime() / 1000) * 1000);
          const month = d.toUTCString().slice(8, 11);
          const day = String(d.getUTCDate()).padStart(2, ' ');
          const time = d.toISOString().slice(11, 19);
          const tag = pid === undefined ? `${app}:` : `${app}[${pid}]:`;
          const line = `<13>${month} ${day} ${time} ${host} ${tag} ${message}`;
          const event = decodeSyslog(line, { ...clock, now: d.getTime() });
          expect(event).toMatchObject({ timestamp: d.toISOString(), hostname: host, appname: app });
          expect(event['procid']).toBe(pid === undefined ? undefined : String(pid));
          expect(event['_raw']).toBe(message === '' ? undefined : message);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('never throws, keeps the message verbatim and loses no non-JSON line', () => {
    const noisy = fc.string({ unit: fc.constantFrom('<', '>', '1', '3', ' ', '-', '[', ']', '"', '\\', '=', 'a', 'F', 'e', 'b', ':', '{', '}'), maxLength: 40 });
    fc.assert(
      fc.property(fc.oneof(noisy, fc.string()), (line) => {
        const event = decodeSyslog(line, clock);
        const raw = event['_raw'];
        if (typeof raw === 'string') expect(line).toContain(raw);
        // Only a JSON-object message (possibly `{}`) may decode to an event without fields.
        if (line.trim() !== '' && !line.includes('{')) expect(Object.keys(event).length).toBeGreaterThan(0);
      }),
      { numRuns: 1000 },
    );
  });
});
