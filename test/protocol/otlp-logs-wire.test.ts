// The wire reader of protobuf OTLP logs (`protocol/otlp/logs-wire.ts`) against protobufjs: on any
// request, well formed or not, `decodeProtobufLogs` answers exactly what decoding with protobufjs
// answers (the same event texts, or the same error), and collectors' usual requests take the fast path.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeProtobufjsLogs, decodeProtobufLogs, exportLogsRequestType } from '../../protocol/index.js';
import { flattenProtobufLogs } from '../../protocol/otlp/logs-wire.js';
import { asTexts, damage, damaged, onFastPath, request } from './otlp-arbitraries.js';

const encode = (r: unknown): Uint8Array => exportLogsRequestType().encode(exportLogsRequestType().fromObject(r as Record<string, unknown>)).finish();

describe('protobuf OTLP logs read from the wire', () => {
  it('answers exactly as protobufjs on any request, most of them read on the fast path', () => {
    let runs = 0;
    let fast = 0;
    fc.assert(
      fc.property(request, (r) => {
        const body = encode(r);
        expect(asTexts(decodeProtobufLogs(body))).toEqual(decodeProtobufjsLogs(body));
        runs++;
        if (onFastPath(flattenProtobufLogs, body)) fast++;
      }),
      { numRuns: 300 },
    );
    expect(fast).toBeGreaterThan(runs / 4);
  });

  it('answers exactly as protobufjs on damaged requests (bytes changed, cut, inserted)', () => {
    fc.assert(
      fc.property(request, fc.array(damage(fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 3 }), (r, damages) => {
        const body = damaged(encode(r), damages);
        expect(asTexts(decodeProtobufLogs(body))).toEqual(decodeProtobufjsLogs(body));
      }),
      { numRuns: 400 },
    );
  });

  it('answers exactly as protobufjs on fields in reverse order, repeated and unknown', () => {
    // LogRecord fields written by hand: observed time (11) before attributes (6) before time (1), an
    // unknown field 15, severity text twice (the later wins), a key after its value.
    const str = (field: number, s: string): number[] => [(field << 3) | 2, Buffer.byteLength(s), ...Buffer.from(s)];
    const msg = (field: number, inner: number[]): number[] => [(field << 3) | 2, inner.length, ...inner];
    const fixed64 = (field: number, n: bigint): number[] => [(field << 3) | 1, ...Buffer.from(new BigUint64Array([n]).buffer)];
    const kv = msg(6, [...msg(2, str(1, 'v')), ...str(1, 'k')]);
    const record = [...fixed64(11, 1_700_000_000_000_000_001n), ...kv, ...fixed64(1, 1_700_000_000_000_000_002n), 15 << 3, 5, ...str(3, 'WARN'), ...str(3, 'INFO')];
    const body = Uint8Array.from(msg(1, msg(2, msg(2, record))));
    const fast = flattenProtobufLogs(body).texts();
    expect({ ok: true, events: fast }).toEqual(decodeProtobufjsLogs(body));
    expect(JSON.parse(fast[0] as string)).toEqual({ timestamp: '2023-11-14T22:13:20.000000002Z', observed_timestamp: '2023-11-14T22:13:20.000000001Z', severity_text: 'INFO', k: 'v' });
  });

  it('checks the UTF-8 it copies unchecked: invalid bytes go to protobufjs, a valid U+FFFD stays on the fast path', () => {
    const withValue = (value: Uint8Array): Uint8Array => {
      const body = Buffer.from(encode({ resourceLogs: [{ scopeLogs: [{ logRecords: [{ attributes: [{ key: 'k', value: { stringValue: 'x' } }] }] }] }] }));
      const at = body.indexOf(0x78); // the value's one byte, 'x'
      return Buffer.concat([body.subarray(0, at), value, body.subarray(at + 1)]);
    };
    // The same length as 'x', so every enclosing length still holds.
    const invalid = withValue(Uint8Array.of(0xff));
    expect(onFastPath(flattenProtobufLogs, invalid)).toBe(false);
    expect(asTexts(decodeProtobufLogs(invalid))).toEqual(decodeProtobufjsLogs(invalid));
    const replacement = encode({ resourceLogs: [{ scopeLogs: [{ logRecords: [{ attributes: [{ key: 'k', value: { stringValue: 'a\uFFFDb' } }] }] }] }] });
    expect(flattenProtobufLogs(replacement).texts()).toEqual(['{"k":"a\uFFFDb"}']);
  });

  it('reads KeyValues around the one-byte-length shape as protobufjs does: empty key, long key and value, empty or extra value fields', () => {
    const str = (field: number, s: string): number[] => [(field << 3) | 2, Buffer.byteLength(s), ...Buffer.from(s)];
    const msg = (field: number, inner: number[]): number[] => [(field << 3) | 2, ...varint(inner.length), ...inner];
    const varint = (n: number): number[] => (n < 0x80 ? [n] : [(n & 0x7f) | 0x80, n >> 7]);
    const pairs = [
      [...str(1, ''), ...msg(2, str(1, 'empty key'))],
      [...msg(1, [...Buffer.from('k'.repeat(130))]), ...msg(2, str(1, 'long key'))],
      [...str(1, 'long'), ...msg(2, msg(1, [...Buffer.from('v'.repeat(200))]))],
      [...str(1, 'none'), ...msg(2, [])],
      [...str(1, 'extra'), ...msg(2, [...str(1, 'x'), 0x78, 1])],
      [...str(1, 'int'), ...msg(2, [0x18, 0x96, 0x01])],
      [...str(1, 'shadowed'), ...msg(2, str(1, 'first')), ...msg(2, str(1, 'second'))],
    ];
    for (const pair of pairs) {
      const record = [...msg(6, str(1, 'before')), ...msg(6, pair), ...msg(6, [...str(1, 'after'), ...msg(2, str(1, 'z'))])];
      const body = Uint8Array.from(msg(1, msg(2, msg(2, record))));
      expect(asTexts(decodeProtobufLogs(body))).toEqual(decodeProtobufjsLogs(body));
    }
  });

  it('reads an exporter-shaped request on the fast path', () => {
    const r = {
      resourceLogs: [{
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'edr' } }, { key: 'host.cpus', value: { intValue: 8 } }] },
        scopeLogs: [{
          scope: { name: 'sigmad-test', version: '1.0' },
          logRecords: [1, 2, 3].map((i) => ({
            timeUnixNano: `170000000000000000${i}`,
            severityNumber: 9,
            severityText: 'INFO',
            body: { stringValue: `process ${i} "started"\n` },
            traceId: Buffer.alloc(16, i),
            spanId: Buffer.alloc(8, i),
            attributes: [
              { key: 'EventID', value: { intValue: i } },
              { key: 'Image', value: { stringValue: 'C:\\Windows\\System32\\cmd.exe' } },
              { key: 'User', value: { stringValue: 'DOMÄIN\\ü' } },
              { key: 'Elevated', value: { boolValue: i === 2 } },
              { key: 'Score', value: { doubleValue: i / 3 } },
              { key: 'Args', value: { arrayValue: { values: [{ stringValue: '/c' }, { intValue: i }] } } },
            ],
          })),
        }],
      }],
    };
    const body = encode(r);
    const events = flattenProtobufLogs(body).texts();
    expect({ ok: true, events }).toEqual(decodeProtobufjsLogs(body));
    expect(JSON.parse(events[1] as string)).toMatchObject({ severity_number: 9, body: 'process 2 "started"\n', trace_id: '02'.repeat(16), EventID: 2, User: 'DOMÄIN\\ü', 'resource.service.name': 'edr', 'scope.version': '1.0' });
  });
});
