import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseDispositionBody } from '../../http/disposition-body.js';
import { splitIngestLines } from '../../http/ingest-lines.js';
import { MAX_LINE_BYTES } from '../../protocol/decode/index.js';
import { formatListenAddress, parseListenAddress } from '../../http/listen-address.js';

const encode = (s: string) => new TextEncoder().encode(s);

describe('listen address', () => {
  it('round-trips IPv4, IPv6 and unix addresses', () => {
    const address = fc.oneof(
      fc.record({ kind: fc.constant('tcp' as const), host: fc.ipV4(), port: fc.integer({ min: 0, max: 65535 }) }),
      fc.record({ kind: fc.constant('tcp' as const), host: fc.ipV6(), port: fc.integer({ min: 0, max: 65535 }) }),
      fc.record({ kind: fc.constant('unix' as const), path: fc.webPath().map((p) => `/${p.replace(/^\/+/, '')}`) }),
    );
    fc.assert(
      fc.property(address, (a) => {
        expect(parseListenAddress(formatListenAddress(a))).toEqual(a);
      }),
      { numRuns: 50 },
    );
  });

  it('never throws; rejects hostnames, bad ports and relative unix paths', () => {
    fc.assert(fc.property(fc.string(), (s) => void parseListenAddress(s)));
    for (const bad of ['localhost:9090', '0.0.0.0', '0.0.0.0:70000', '[::1]', 'unix://rel/path', ':9090', 'tcp://0.0.0.0:1']) {
      expect(parseListenAddress(bad), bad).toHaveProperty('error');
    }
    expect(parseListenAddress('0.0.0.0:9090')).toEqual({ kind: 'tcp', host: '0.0.0.0', port: 9090 });
  });
});

describe('NDJSON ingest line splitting', () => {
  const line = fc.string({ unit: 'grapheme' }).filter((s) => !s.includes('\n') && !s.includes('\r'));

  it('yields the non-blank lines in order for LF and CRLF endings', () => {
    fc.assert(
      fc.property(fc.array(line, { maxLength: 20 }), fc.constantFrom('\n', '\r\n'), fc.boolean(), (lines, eol, trailing) => {
        const body = lines.join(eol) + (trailing ? eol : '');
        // Blank means JSON-insignificant whitespace (plus FF, VT, BOM); a line of other Unicode spaces is
        // kept and left to the decoder (String#trim would drop it).
        const blank = (l: string): boolean => /^[ \t\f\v\ufeff]*$/.test(l);
        const split = splitIngestLines(encode(body));
        expect({ ...split, lines: split.lines.texts() }).toEqual({ lines: lines.filter((l) => !blank(l)), rejected: [], tooLong: false });
      }),
    );
  });

  it('stops at the first line over the byte limit, keeping the lines before it', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8 }), fc.array(fc.nat({ max: 8 }), { maxLength: 10 }), fc.array(line, { maxLength: 10 }), (limit, sizes, after) => {
        const fits = sizes.map((n) => 'x'.repeat(Math.min(n, limit)));
        const body = [...fits, 'y'.repeat(limit + 1), ...after].join('\n');
        const split = splitIngestLines(encode(body), limit);
        expect({ ...split, lines: split.lines.texts() }).toMatchObject({ lines: fits.filter((l) => l !== ''), tooLong: true });
        expect(split.rejected).toEqual([expect.objectContaining({ reason: 'too_long', bytes: limit + 1, head: 'y'.repeat(limit + 1) })]);
      }),
    );
  });

  it('accepts a line of exactly MAX_LINE_BYTES', () => {
    expect(splitIngestLines(encode('a'.repeat(MAX_LINE_BYTES))).rejected).toEqual([]);
    expect(splitIngestLines(encode('a'.repeat(MAX_LINE_BYTES + 1))).tooLong).toBe(true);
  });

  it('counts a line that is not UTF-8 as rejected and keeps going', () => {
    const body = new Uint8Array([...encode('{"a":1}\n'), 0xff, 0xfe, 0x0a, ...encode('{"b":2}\n')]);
    const split = splitIngestLines(body);
    expect({ ...split, lines: split.lines.texts() }).toEqual({ lines: ['{"a":1}', '{"b":2}'], rejected: [{ ok: false, reason: 'invalid_utf8', bytes: 2, lineNo: 2, head: '\ufffd\ufffd' }], tooLong: false });
  });
});

describe('disposition bodies', () => {
  const record = fc.dictionary(fc.string(), fc.jsonValue());

  it('reads one object, an array of objects, or NDJSON to the same records', () => {
    fc.assert(
      fc.property(fc.array(record, { minLength: 1, maxLength: 5 }), (records) => {
        const normalized = JSON.parse(JSON.stringify(records)) as unknown[];
        expect(parseDispositionBody(encode(JSON.stringify(records)))).toEqual(normalized);
        expect(parseDispositionBody(encode(records.map((r) => JSON.stringify(r)).join('\n')))).toEqual(normalized);
        expect(parseDispositionBody(encode(JSON.stringify(records[0])))).toEqual(normalized.slice(0, 1));
      }),
    );
  });

  it('rejects bodies that are neither JSON nor NDJSON', () => {
    for (const bad of ['', '   \n', '{"a":1}\n{oops', 'not json']) expect(parseDispositionBody(encode(bad)), bad).toBeUndefined();
    expect(parseDispositionBody(new Uint8Array([0xff, 0xfe]))).toBeUndefined();
  });
});
