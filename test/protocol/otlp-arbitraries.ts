// OTLP logs requests as fast-check arbitraries, in protobufjs' object form (ids and bytes as bytes):
// keys that collide with §17.3's own or look like array indices, strings that need escaping or do
// not fit Latin-1, ints beyond a double's, every AnyValue member, nested arrays and kvlists; and the
// damage done to encoded requests, for the byte-level readers' tests.
import fc from 'fast-check';
import { lineTexts } from '../../protocol/index.js';
import type { UnitLines } from '../../protocol/index.js';
import type { OtlpDecoded } from '../../protocol/otlp/logs-request.js';

/** Keys that collide with §17.3's own, with each other, look like array indices, or need escaping. */
const key = fc.oneof(
  fc.constantFrom('a', 'b', 'EventID', 'timestamp', 'body', 'trace_id', 'severity_text', 'scope.name', 'resource.host', '__proto__', '', '0', '17', '1a', 'q"u\\o', 'tab\t', 'é', '日本'),
  fc.string({ maxLength: 5 }),
);
const text = fc.oneof(fc.string({ maxLength: 12 }), fc.string({ unit: 'binary', maxLength: 6 }), fc.constantFrom('', 'line\nbreak', '"quoted"', '\u0000\u001f\u007f', '\uFFFD', '\u2028', 'C:\\Windows', 'https://a/b', 'Microsoft® Windows®', 'ÿ\u0080', 'é日本é'));
const int = fc.oneof(fc.integer({ min: 0, max: 1e6 }), fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map((n) => n.toString()));
const double = fc.oneof(fc.double(), fc.constantFrom(0, -0, Number.NaN, Number.POSITIVE_INFINITY, 1.5e300));
const bytes = fc.uint8Array({ maxLength: 9 });

const { anyValue } = fc.letrec<{ anyValue: Record<string, unknown>; keyValue: Record<string, unknown> }>((tie) => ({
  anyValue: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.record({ stringValue: text }),
    fc.record({ boolValue: fc.boolean() }),
    fc.record({ intValue: int }),
    fc.record({ doubleValue: double }),
    fc.record({ bytesValue: bytes }),
    fc.constant({}),
    fc.record({ arrayValue: fc.record({ values: fc.array(tie('anyValue'), { maxLength: 3 }) }) }),
    fc.record({ kvlistValue: fc.record({ values: fc.array(tie('keyValue'), { maxLength: 3 }) }) }),
  ),
  keyValue: fc.record({ key, value: tie('anyValue') }, { requiredKeys: ['key'] }),
}));
const keyValue = fc.record({ key, value: anyValue }, { requiredKeys: ['key'] });
/** Record attributes: any keys, or distinct keys none of which collides or needs the object walk (the texts written as they come). */
const plainKey = fc.oneof(fc.constantFrom('EventID', 'Image', 'é', '日本', 'q"u\\o', 'tab\t', 'a/b', ''), fc.stringMatching(/^[A-Za-z_][\w.]{0,8}$/));
const attributes = fc.oneof(fc.array(keyValue, { maxLength: 6 }), fc.uniqueArray(fc.record({ key: plainKey, value: anyValue }), { selector: (kv) => kv.key, maxLength: 6 }));
const nanos = fc.oneof(fc.constant('0'), fc.bigInt({ min: 1n, max: 2n ** 64n - 1n }).map(String), fc.constant('1700000000123456789'));

const logRecord = fc.record(
  {
    timeUnixNano: nanos,
    observedTimeUnixNano: nanos,
    severityNumber: fc.integer({ min: -3, max: 24 }),
    severityText: text,
    body: anyValue,
    attributes,
    flags: fc.nat(),
    traceId: bytes,
    spanId: bytes,
    eventName: text,
  },
  { requiredKeys: [] },
);
export const request = fc.record({
  resourceLogs: fc.array(
    fc.record(
      {
        resource: fc.record({ attributes: fc.array(keyValue, { maxLength: 3 }) }),
        scopeLogs: fc.array(fc.record({ scope: fc.record({ name: text, version: text, attributes: fc.array(keyValue, { maxLength: 2 }) }, { requiredKeys: [] }), logRecords: fc.array(logRecord, { maxLength: 4 }), schemaUrl: text }, { requiredKeys: [] }), { maxLength: 3 }),
        schemaUrl: text,
      },
      { requiredKeys: [] },
    ),
    { maxLength: 3 },
  ),
});


/**
 * One scope of records that repeat a list of keys (as an export's records do), each with values of its
 * own of any member, now and then a key dropped, moved or added: the byte-level readers match a record's
 * KeyValues against the previous record's at the same index, and must not be misled by what changed.
 */
export const repeatedKeysRequest = fc
  .tuple(
    fc.uniqueArray(fc.oneof(plainKey, fc.constantFrom('Image', 'Imag', 'ImageLoaded', 'EventID')), { minLength: 1, maxLength: 6 }),
    fc.array(fc.tuple(fc.array(anyValue, { minLength: 7, maxLength: 7 }), fc.nat(), fc.constantFrom('same', 'same', 'drop', 'move', 'add')), { minLength: 2, maxLength: 6 }),
  )
  .map(([keys, records]) => ({
    resourceLogs: [
      {
        scopeLogs: [
          {
            logRecords: records.map(([values, n, how]) => {
              const ks = [...keys];
              if (how === 'drop') ks.splice(n % ks.length, 1);
              else if (how === 'move') ks.unshift(...ks.splice(n % ks.length, 1));
              else if (how === 'add') ks.splice(n % (ks.length + 1), 0, 'added');
              return { attributes: ks.map((k, i) => ({ key: k, value: values[i] })) };
            }),
          },
        ],
      },
    ],
  }));

/** A byte changed, inserted, or the body cut at `at` (modulo its length). */
export interface Damage {
  readonly at: number;
  readonly byte: number;
  readonly kind: 'set' | 'insert' | 'cut';
}

export function damage(byte: fc.Arbitrary<number>): fc.Arbitrary<Damage> {
  return fc.record({ at: fc.nat(), byte, kind: fc.constantFrom('set', 'insert', 'cut') });
}

export function damaged(body: Uint8Array, damages: readonly Damage[]): Buffer {
  let b = Buffer.from(body);
  for (const d of damages) {
    const at = b.length === 0 ? 0 : d.at % b.length;
    if (d.kind === 'set' && b.length > 0) b[at] = d.byte;
    else if (d.kind === 'insert') b = Buffer.concat([b.subarray(0, at), Buffer.from([d.byte]), b.subarray(at)]);
    else b = b.subarray(0, at);
  }
  return b;
}

/** `flatten` (a byte-level reader) reads `body` without leaving it to the general decoder. */
export function onFastPath(flatten: (body: Uint8Array) => UnitLines, body: Uint8Array): boolean {
  try {
    flatten(body);
    return true;
  } catch {
    return false;
  }
}

/** A decoder's answer with its events as strings (a byte-level reader gives them as UTF-8 lines). */
export function asTexts(decoded: OtlpDecoded): OtlpDecoded {
  return decoded.ok ? { ok: true, events: [...lineTexts(decoded.events)] } : decoded;
}
