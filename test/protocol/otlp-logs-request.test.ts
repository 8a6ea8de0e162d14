// LogRecord → event flattening (daemon-semantics §17.3), checked on protobuf and OTLP/JSON encodings
// of the same requests, against a small reference mapping.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeJsonLogs, decodeProtobufLogs, exportLogsRequestType, lineText, lineTexts, nanosToRfc3339 } from '../../protocol/index.js';

const key = fc.string({ minLength: 1, maxLength: 6 });
/** A scalar AnyValue and the JSON value §17.3 maps it to. */
const scalar = fc.oneof(
  fc.string({ maxLength: 8 }).map((s) => ({ value: { stringValue: s }, json: s as unknown })),
  fc.boolean().map((b) => ({ value: { boolValue: b }, json: b as unknown })),
  fc.integer({ min: -1e9, max: 1e9 }).map((n) => ({ value: { intValue: n }, json: n as unknown })),
  fc.double({ noNaN: true, noDefaultInfinity: true }).filter((d) => !Object.is(d, -0)).map((d) => ({ value: { doubleValue: d }, json: d as unknown })),
);
const record = fc.record({
  attributes: fc.uniqueArray(fc.tuple(key, scalar), { selector: ([k]) => k, maxLength: 5 }),
  severityNumber: fc.integer({ min: 0, max: 24 }),
  timeUnixNano: fc.bigInt({ min: 0n, max: 4_000_000_000_000_000_000n }),
});
type RecordCase = typeof record extends fc.Arbitrary<infer T> ? T : never;

function requestOf(records: RecordCase[]) {
  return {
    resourceLogs: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'svc-a' } }] },
        scopeLogs: [{ scope: { name: 'scope-a' }, logRecords: records.map((r) => ({ severityNumber: r.severityNumber, timeUnixNano: r.timeUnixNano.toString(), attributes: r.attributes.map(([k, v]) => ({ key: k, value: v.value })) })) }],
      },
    ],
  };
}

function expected(r: RecordCase): Record<string, unknown> {
  const event: Record<string, unknown> = {};
  const time = nanosToRfc3339(r.timeUnixNano.toString());
  if (time !== undefined) event['timestamp'] = time;
  if (r.severityNumber !== 0) event['severity_number'] = r.severityNumber;
  for (const [k, v] of r.attributes) event[k] = v.json;
  event['resource.service.name'] = 'svc-a';
  event['scope.name'] = 'scope-a';
  return event;
}

describe('OTLP logs request flattening', () => {
  it('maps every record the same from protobuf and from OTLP/JSON, as the reference mapping says', () => {
    fc.assert(
      fc.property(fc.array(record, { maxLength: 4 }), (records) => {
        const request = requestOf(records);
        const proto = decodeProtobufLogs(exportLogsRequestType().encode(exportLogsRequestType().fromObject(request)).finish());
        const json = decodeJsonLogs(new TextEncoder().encode(JSON.stringify(request)));
        const want = records.map(expected);
        expect(proto.ok && lineTexts(proto.events).map((e) => JSON.parse(e))).toEqual(want);
        expect(json.ok && lineTexts(json.events).map((e) => JSON.parse(e))).toEqual(want);
      }),
    );
  });

  it('writes a record with no key of its own as its resource and scope keys alone (no comma before the first)', () => {
    // Found by CI (seed -749207584): an empty record under a scope wrote `{,"scope.version":…}`.
    const request = { resourceLogs: [{ scopeLogs: [{ scope: { version: '\u0000' }, logRecords: [{}] }] }] };
    const proto = decodeProtobufLogs(exportLogsRequestType().encode(exportLogsRequestType().fromObject(request)).finish());
    const json = decodeJsonLogs(new TextEncoder().encode(JSON.stringify(request)));
    for (const decoded of [proto, json]) expect(decoded.ok && lineTexts(decoded.events)).toEqual(['{"scope.version":"\\u0000"}']);
  });

  it('keeps nanoseconds exact, spells ids in hex, lifts kvlist bodies and maps bytes, arrays and big ints', () => {
    const request = {
      resourceLogs: [{ scopeLogs: [{ logRecords: [{
        timeUnixNano: '1714557600123456789',
        traceId: Buffer.from('0af7651916cd43dd8448eb211c80319c', 'hex'),
        spanId: Buffer.from('b7ad6b7169203331', 'hex'),
        body: { kvlistValue: { values: [{ key: 'Image', value: { stringValue: 'a.exe' } }, { key: 'empty' }] } },
        attributes: [
          { key: 'raw', value: { bytesValue: Buffer.from([0xde, 0xad]) } },
          { key: 'list', value: { arrayValue: { values: [{ intValue: 1 }, { stringValue: 'two' }] } } },
          { key: 'big', value: { intValue: '9007199254740993' } },
        ],
      }] }] }],
    };
    const proto = decodeProtobufLogs(exportLogsRequestType().encode(exportLogsRequestType().fromObject(request)).finish());
    expect(proto.ok && JSON.parse(lineText(proto.events, 0))).toEqual({
      timestamp: '2024-05-01T10:00:00.123456789Z',
      Image: 'a.exe',
      trace_id: '0af7651916cd43dd8448eb211c80319c',
      span_id: 'b7ad6b7169203331',
      raw: 'dead',
      list: [1, 'two'],
      big: '9007199254740993',
    });
    const json = decodeJsonLogs(new TextEncoder().encode('{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"traceId":"0AF7651916CD43DD8448EB211C80319C","body":{"doubleValue":"NaN"}}]}]}]}'));
    expect(json.ok && JSON.parse(lineText(json.events, 0))).toEqual({ body: null, trace_id: '0af7651916cd43dd8448eb211c80319c' });
  });

  it('names what is wrong with a body that does not decode', () => {
    expect(decodeProtobufLogs(Uint8Array.from([0x0a, 0x05, 0x01]))).toMatchObject({ ok: false, error: expect.stringMatching(/^protobuf decode error: /) });
    expect(decodeJsonLogs(new TextEncoder().encode('{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"severityNumber":"x"}]}]}]}'))).toMatchObject({ ok: false, error: expect.stringMatching(/^JSON decode error: /) });
    expect(decodeJsonLogs(Uint8Array.from([0xff, 0xfe]))).toMatchObject({ ok: false });
  });
});
