// The byte-level reader of OTLP/JSON logs (`protocol/otlp/logs-json.ts`) against `JSON.parse` and the
// object walk: on any request, well formed or not, written in any of the ways JSON allows (members in
// any order, unknown and repeated members, whitespace, `\u` and `\/` escapes, values of the wrong type),
// `decodeJsonLogs` answers exactly what `decodeJsonLogsByObject` answers (the same event texts, or the
// same error), and exporters' usual requests take the fast path.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeJsonLogs } from '../../protocol/index.js';
import { flattenJsonLogs } from '../../protocol/otlp/logs-json.js';
import { decodeJsonLogsByObject } from '../../protocol/otlp/logs-request.js';
import { asTexts, damage, damaged, onFastPath, repeatedKeysRequest, request } from './otlp-arbitraries.js';

/** protobufjs' object form as OTLP/JSON spells it: ids in hex, other bytes in base64. */
function otlpJson(value: unknown, key = ''): unknown {
  if (value instanceof Uint8Array) return Buffer.from(value).toString(key === 'traceId' || key === 'spanId' ? 'hex' : 'base64');
  if (Array.isArray(value)) return value.map((v) => otlpJson(v));
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, otlpJson(v, k)]));
  return value;
}

/** Members an exporter may add that §17.3 does not map, and values of every JSON type. */
const EXTRA: readonly (readonly [string, unknown])[] = [['flags', 1], ['droppedAttributesCount', 0], ['schemaUrl', 'https://x/1.0'], ['eventName', { nested: [1, 2.5e-3, true, null, { a: '\u00e9' }] }]];
const SPACE = [' ', '\n', '\t', '\r\n  '];

/**
 * JSON text of `value` with the choices `rand` makes: whitespace, members shuffled, extra members,
 * string values with `\u` and `\/` escapes; with `mutate`, also escaped member names, repeated members
 * and values swapped for one of another type.
 */
function render(value: unknown, rand: () => number, mutate: boolean): string {
  const ws = (): string => (rand() < 0.1 ? (SPACE[Math.floor(rand() * SPACE.length)] as string) : '');
  if (typeof value === 'string') {
    let out = '"';
    for (const ch of value) {
      if (rand() < 0.05) out += [...ch].map((_, i) => `\\u${ch.charCodeAt(i).toString(16).padStart(4, '0')}`).join('');
      else if (ch === '/' || rand() < 0.02) out += ch === '/' ? '\\/' : JSON.stringify(ch).slice(1, -1);
      else out += JSON.stringify(ch).slice(1, -1);
    }
    return `${out}"`;
  }
  if (Array.isArray(value)) return `${ws()}[${value.map((v) => `${ws()}${render(v, rand, mutate)}${ws()}`).join(',')}]${ws()}`;
  if (typeof value === 'object' && value !== null) {
    const members: [string, unknown][] = Object.entries(value);
    if (rand() < 0.15) members.sort(() => rand() - 0.5);
    if (rand() < 0.1) members.splice(Math.floor(rand() * (members.length + 1)), 0, [...(EXTRA[Math.floor(rand() * EXTRA.length)] as [string, unknown])]);
    if (mutate && rand() < 0.03 && members.length > 0) members.push([...(members[0] as [string, unknown])]);
    if (mutate && rand() < 0.02 && members.length > 0) (members[0] as [string, unknown])[1] = [null, 7, 'x', [], {}][Math.floor(rand() * 5)];
    return `${ws()}{${members.map(([k, v]) => `${ws()}${mutate ? render(k, rand, mutate) : JSON.stringify(k)}${ws()}:${ws()}${render(v, rand, mutate)}${ws()}`).join(',')}}${ws()}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** A small deterministic generator of choices (mulberry32). */
function chooser(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const body = fc
  .tuple(request, fc.nat(), fc.constantFrom('plain', 'formatted', 'mutated'))
  .map(([r, seed, how]) => Buffer.from(how === 'plain' ? JSON.stringify(otlpJson(r)) : render(otlpJson(r), chooser(seed), how === 'mutated')));

describe('OTLP/JSON logs read byte by byte', () => {
  it('answers exactly as JSON.parse and the object walk on any request, most of them read on the fast path', () => {
    let runs = 0;
    let fast = 0;
    fc.assert(
      fc.property(body, (b) => {
        expect(asTexts(decodeJsonLogs(b))).toEqual(decodeJsonLogsByObject(b));
        runs++;
        if (onFastPath(flattenJsonLogs, b)) fast++;
      }),
      { numRuns: 400 },
    );
    expect(fast).toBeGreaterThan(runs / 4);
  });

  it('answers exactly as JSON.parse on records repeating their keys, values and keys changing from record to record', () => {
    let fast = 0;
    fc.assert(
      fc.property(repeatedKeysRequest, fc.nat(), fc.constantFrom('plain', 'plain', 'formatted'), (r, seed, how) => {
        const b = Buffer.from(how === 'plain' ? JSON.stringify(otlpJson(r)) : render(otlpJson(r), chooser(seed), false));
        expect(asTexts(decodeJsonLogs(b))).toEqual(decodeJsonLogsByObject(b));
        if (onFastPath(flattenJsonLogs, b)) fast++;
      }),
      { numRuns: 300 },
    );
    expect(fast).toBeGreaterThan(100);
  });

  it('answers exactly as JSON.parse on damaged requests (bytes changed, cut, inserted)', () => {
    // JSON's punctuation, escapes, number and literal starts, a control character, bytes of bad UTF-8.
    const byte = fc.constantFrom(0x22, 0x5c, 0x2c, 0x7b, 0x7d, 0x5b, 0x5d, 0x3a, 0x30, 0x2d, 0x65, 0x20, 0x0a, 0x00, 0xc3, 0xff, 0x75, 0x6e);
    fc.assert(
      fc.property(body, fc.array(damage(byte), { minLength: 1, maxLength: 3 }), (original, damages) => {
        const b = damaged(original, damages);
        expect(asTexts(decodeJsonLogs(b))).toEqual(decodeJsonLogsByObject(b));
      }),
      { numRuns: 400 },
    );
  });

  it('puts the keys before the attributes whichever order the members come in, empty values included', () => {
    // Members §17.3 maps, each with a value giving a key or none (empty, zero, an empty body).
    const members: fc.Arbitrary<[string, unknown]>[] = [
      fc.constantFrom<unknown>('', 'INFO').map((v) => ['severityText', v]),
      fc.constantFrom<unknown>(0, 9).map((v) => ['severityNumber', v]),
      fc.constantFrom<unknown>({}, { stringValue: '' }, { stringValue: 'x\n' }, { intValue: 3 }).map((v) => ['body', v]),
      fc.constantFrom<unknown>('', 'ab'.repeat(16)).map((v) => ['traceId', v]),
      fc.constantFrom<unknown>('', '01'.repeat(8)).map((v) => ['spanId', v]),
      fc.constantFrom<unknown>('1700000000000000001', 1700000000000000000).map((v) => ['timeUnixNano', v]),
      fc.subarray(['EventID', 'Image', 'User']).map((keys) => ['attributes', keys.map((key, i) => ({ key, value: i === 0 ? { intValue: 4 } : { stringValue: `C:\\${key}` } }))]),
    ];
    const record = fc.tuple(...members).chain((all) => fc.shuffledSubarray(all));
    fc.assert(
      fc.property(fc.array(record, { minLength: 1, maxLength: 4 }), (records) => {
        const text = records.map((pairs) => `{${pairs.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}}`).join(',');
        const b = Buffer.from(`{"resourceLogs":[{"scopeLogs":[{"logRecords":[${text}]}]}]}`);
        expect(onFastPath(flattenJsonLogs, b)).toBe(true);
        expect(asTexts(decodeJsonLogs(b))).toEqual(decodeJsonLogsByObject(b));
      }),
      { numRuns: 300 },
    );
  });

  it('checks the keys of a record repeating those of a record before it whose keys collided', () => {
    const kv = (key: string, v: number): string => `{"key":"${key}","value":{"intValue":${String(v)}}}`;
    const records = [['a', 'b'], ['a', 'a'], ['a', 'a'], ['a', 'b'], ['a', 'b']].map((keys) => `{"attributes":[${keys.map((k, i) => kv(k, i)).join(',')}]}`);
    const b = Buffer.from(`{"resourceLogs":[{"scopeLogs":[{"logRecords":[${records.join(',')}]}]}]}`);
    expect(flattenJsonLogs(b).texts()).toEqual(['{"a":0,"b":1}', '{"a":1}', '{"a":1}', '{"a":0,"b":1}', '{"a":0,"b":1}']);
  });

  it('reads an exporter-shaped request on the fast path, heads after their items included', () => {
    const record = (i: number) => ({
      timeUnixNano: `170000000000000000${i}`,
      observedTimeUnixNano: 1700000000000000000 + i * 1000,
      severityNumber: 9,
      severityText: 'INFO',
      body: { stringValue: `process ${i} "started"\n` },
      attributes: [
        { key: 'EventID', value: { intValue: i } },
        { key: 'Image', value: { stringValue: 'C:\\Windows\\System32\\cmd.exe' } },
        { key: 'User', value: { stringValue: 'DOMÄIN\\ü' } },
        { key: 'Elevated', value: { boolValue: i === 2 } },
        { key: 'Score', value: { doubleValue: i / 3 } },
        { key: 'Big', value: { intValue: '9007199254740993' } },
        { key: 'Args', value: { arrayValue: { values: [{ stringValue: '/c' }, { intValue: i }] } } },
      ],
      droppedAttributesCount: 0,
      flags: 1,
      traceId: 'AB'.repeat(16),
      spanId: `0${i}`.repeat(8),
    });
    // The resource after its scopes and a scope after its records: both still apply to every record.
    const text = JSON.stringify({ resourceLogs: [{ scopeLogs: [{ logRecords: [1, 2, 3].map(record), scope: { name: 'sigmad-test', version: '1.0' } }], resource: { attributes: [{ key: 'service.name', value: { stringValue: 'edr' } }] } }] });
    const b = Buffer.from(text);
    const events = flattenJsonLogs(b).texts();
    expect({ ok: true, events }).toEqual(decodeJsonLogsByObject(b));
    expect(JSON.parse(events[1] as string)).toEqual({
      timestamp: '2023-11-14T22:13:20.000000002Z',
      observed_timestamp: '2023-11-14T22:13:20.000002048Z',
      severity_number: 9,
      severity_text: 'INFO',
      body: 'process 2 "started"\n',
      trace_id: 'ab'.repeat(16),
      span_id: '02'.repeat(8),
      EventID: 2,
      Image: 'C:\\Windows\\System32\\cmd.exe',
      User: 'DOMÄIN\\ü',
      Elevated: true,
      Score: 2 / 3,
      Big: '9007199254740993',
      Args: ['/c', 2],
      'resource.service.name': 'edr',
      'scope.name': 'sigmad-test',
      'scope.version': '1.0',
    });
  });

  it('copies an int written as a plain integer and reads any other spelling as JSON.parse does', () => {
    const ints = ['0', '-0', '7', '-7', '123456789012345', '-123456789012345', '1234567890123456', '9007199254740993', '12.5', '12.0', '1e3', '1E3', '0.5', '"42"', '"-9"', '"007"'];
    const b = Buffer.from(`{"resourceLogs":[{"scopeLogs":[{"logRecords":[${ints.map((n) => `{"attributes":[{"key":"n","value":{"intValue":${n}}}]}`).join(',')}]}]}]}`);
    expect(onFastPath(flattenJsonLogs, b)).toBe(true);
    expect(asTexts(decodeJsonLogs(b))).toEqual(decodeJsonLogsByObject(b));
  });

  it('flattens records it cannot write as they come as objects, and leaves malformed requests to JSON.parse', () => {
    const request = (records: string): Buffer => Buffer.from(`{"resourceLogs":[{"scopeLogs":[{"logRecords":[${records}]}]}]}`);
    // A kvlist body, a colliding key, an escaped key, a value before its key: each record by itself.
    const b = request('{"body":{"kvlistValue":{"values":[{"key":"k","value":{"intValue":"1"}}]}}},{"attributes":[{"key":"a","value":{"boolValue":true}},{"key":"a","value":{"boolValue":false}}]},{"attributes":[{"key":"\\u0061","value":{}}]},{"attributes":[{"value":{"stringValue":"v"},"key":"k"}]}');
    expect(flattenJsonLogs(b).texts()).toEqual(['{"k":1}', '{"a":false}', '{"a":null}', '{"k":"v"}']);
    for (const bad of [request('{"severityNumber":1.5}'), request('{"attributes":[{"value":{}}]}'), request('{"timeUnixNano":1e400}'), Buffer.from('\uFEFF{}'), Buffer.from('{"resourceLogs":[]} x')]) {
      expect(onFastPath(flattenJsonLogs, bad)).toBe(false);
      expect(asTexts(decodeJsonLogs(bad))).toEqual(decodeJsonLogsByObject(bad));
    }
  });
});
