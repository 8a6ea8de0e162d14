// An OTLP `ExportLogsServiceRequest` as sigmad reads it, from protobuf or OTLP/JSON, and its
// flattening into one JSON event per LogRecord (daemon-semantics §17.3).
import Type from 'typebox';
import { Compile } from 'typebox/compile';
import { ExportLogsServiceRequestType } from './logs-proto.js';
import { flattenProtobufLogs, UNCOMMON } from './logs-wire.js';
import { nanosToRfc3339 } from './otlp-time.js';

const Int64 = Type.Union([Type.String(), Type.Number()]);
const KeyValue = Type.Object({ key: Type.String(), value: Type.Optional(Type.Unknown()) });
const Attributes = Type.Optional(Type.Array(KeyValue));
const LogRecord = Type.Object({
  timeUnixNano: Type.Optional(Int64),
  observedTimeUnixNano: Type.Optional(Int64),
  severityNumber: Type.Optional(Type.Integer()),
  severityText: Type.Optional(Type.String()),
  body: Type.Optional(Type.Unknown()),
  attributes: Attributes,
  traceId: Type.Optional(Type.String()),
  spanId: Type.Optional(Type.String()),
});

/** The fields of `ExportLogsServiceRequest` sigmad maps; camelCase as OTLP/JSON spells them. */
const OtlpLogsRequest = Type.Object({
  resourceLogs: Type.Optional(
    Type.Array(
      Type.Object({
        resource: Type.Optional(Type.Object({ attributes: Attributes })),
        scopeLogs: Type.Optional(
          Type.Array(
            Type.Object({
              scope: Type.Optional(Type.Object({ name: Type.Optional(Type.String()), version: Type.Optional(Type.String()) })),
              logRecords: Type.Optional(Type.Array(LogRecord)),
            }),
          ),
        ),
      }),
    ),
  ),
});
export type OtlpLogsRequest = Type.Static<typeof OtlpLogsRequest>;

const checkRequest = Compile(OtlpLogsRequest);

/** How the ids and `bytesValue`s of a decoded request are spelled. */
type IdEncoding = 'hex' | 'base64';

/** A decoded request, or the message of the 400 answer (daemon-semantics §17.1 step 3). */
export type OtlpDecoded = { readonly ok: true; readonly events: string[] } | { readonly ok: false; readonly error: string };

/**
 * Decode a protobuf `ExportLogsServiceRequest` into one JSON event line per LogRecord: read straight
 * from the wire when it is encoded as collectors do, else by protobufjs (same events, its errors).
 */
export function decodeProtobufLogs(body: Uint8Array): OtlpDecoded {
  try {
    return { ok: true, events: flattenProtobufLogs(body) };
  } catch (error) {
    if (error !== UNCOMMON) throw error;
  }
  return decodeProtobufjsLogs(body);
}

/** `decodeProtobufLogs` by protobufjs' message and object trees: any encoding, exact decode errors. */
export function decodeProtobufjsLogs(body: Uint8Array): OtlpDecoded {
  let request: OtlpLogsRequest;
  try {
    const message = ExportLogsServiceRequestType.decode(body);
    // Strings keep 64-bit nanoseconds exact; bytes come out base64, as OTLP/JSON spells bytesValue.
    request = ExportLogsServiceRequestType.toObject(message, { longs: String, bytes: String, oneofs: false }) as OtlpLogsRequest;
  } catch (error) {
    return { ok: false, error: `protobuf decode error: ${messageOf(error)}` };
  }
  return { ok: true, events: flattenLogs(request, 'base64') };
}

/** Decode an OTLP/JSON `ExportLogsServiceRequest` (trace and span ids in hex, as the encoding says). */
export function decodeJsonLogs(body: Uint8Array): OtlpDecoded {
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body));
  } catch (error) {
    return { ok: false, error: `JSON decode error: ${messageOf(error)}` };
  }
  if (!checkRequest.Check(parsed)) {
    const first = checkRequest.Errors(parsed)[0];
    return { ok: false, error: `JSON decode error: ${first === undefined ? 'not an ExportLogsServiceRequest' : `${first.instancePath || '/'} ${first.message}`}` };
  }
  return { ok: true, events: flattenLogs(parsed, 'hex') };
}

/** One JSON text per LogRecord, keys inserted in the order of §17.3 (later keys win a collision). */
function flattenLogs(request: OtlpLogsRequest, ids: IdEncoding): string[] {
  const events: string[] = [];
  for (const resourceLogs of request.resourceLogs ?? []) {
    const resource = Object.entries(attributesOf(resourceLogs.resource?.attributes, ids)).map(([key, value]) => [`resource.${key}`, value] as const);
    for (const scopeLogs of resourceLogs.scopeLogs ?? []) {
      const scopeName = scopeLogs.scope?.name ?? '';
      const scopeVersion = scopeLogs.scope?.version ?? '';
      for (const record of scopeLogs.logRecords ?? []) {
        const event: Record<string, unknown> = {};
        const time = nanosToRfc3339(record.timeUnixNano);
        if (time !== undefined) event['timestamp'] = time;
        const observed = nanosToRfc3339(record.observedTimeUnixNano);
        if (observed !== undefined) event['observed_timestamp'] = observed;
        if (record.severityNumber !== undefined && record.severityNumber !== 0) event['severity_number'] = record.severityNumber;
        if (record.severityText !== undefined && record.severityText !== '') event['severity_text'] = record.severityText;
        if (isObject(record.body)) {
          const body = record.body;
          if (isObject(body['kvlistValue'])) assignAttributes(event, listOf(body['kvlistValue']), ids);
          else if (hasValue(body)) event['body'] = anyValue(body, ids);
        }
        const traceId = idHex(record.traceId, ids);
        if (traceId !== '') event['trace_id'] = traceId;
        const spanId = idHex(record.spanId, ids);
        if (spanId !== '') event['span_id'] = spanId;
        assignAttributes(event, record.attributes, ids);
        for (const [key, value] of resource) event[key] = value;
        if (scopeName !== '') event['scope.name'] = scopeName;
        if (scopeVersion !== '') event['scope.version'] = scopeVersion;
        events.push(JSON.stringify(event));
      }
    }
  }
  return events;
}

const VALUE_KEYS = ['stringValue', 'boolValue', 'intValue', 'doubleValue', 'arrayValue', 'kvlistValue', 'bytesValue'] as const;

function hasValue(value: Record<string, unknown>): boolean {
  return VALUE_KEYS.some((k) => value[k] !== undefined);
}

/** AnyValue → JSON (§17.3): ints exact when they fit a double's integers, else their decimal text. */
function anyValue(value: unknown, ids: IdEncoding): unknown {
  if (!isObject(value)) return null;
  if (typeof value['stringValue'] === 'string') return value['stringValue'];
  if (typeof value['boolValue'] === 'boolean') return value['boolValue'];
  if (value['intValue'] !== undefined) return intOf(value['intValue']);
  if (value['doubleValue'] !== undefined) {
    const n = Number(value['doubleValue']);
    return Number.isFinite(n) ? n : null;
  }
  if (isObject(value['arrayValue'])) return listOf(value['arrayValue']).map((v) => anyValue(v, ids));
  if (isObject(value['kvlistValue'])) return attributesOf(listOf(value['kvlistValue']), ids);
  if (typeof value['bytesValue'] === 'string') return Buffer.from(value['bytesValue'], 'base64').toString('hex');
  return null;
}

/** Key/value pairs with a value, as an object (`undefined` values skipped as §17.3 says). */
function attributesOf(list: readonly unknown[] | undefined, ids: IdEncoding): Record<string, unknown> {
  return assignAttributes({}, list, ids);
}

/**
 * Key/value pairs assigned into `into` in order, as assigning their object would (later keys win in
 * place). `__proto__` is skipped: as a key it would only swap a prototype, which no event text shows.
 */
function assignAttributes(into: Record<string, unknown>, list: readonly unknown[] | undefined, ids: IdEncoding): Record<string, unknown> {
  if (list === undefined) return into;
  for (const kv of list) {
    if (!isObject(kv) || typeof kv['key'] !== 'string' || !isObject(kv['value']) || kv['key'] === '__proto__') continue;
    into[kv['key']] = anyValue(kv['value'], ids);
  }
  return into;
}

function listOf(holder: Record<string, unknown>): readonly unknown[] {
  const values = holder['values'];
  return Array.isArray(values) ? values : [];
}

function intOf(raw: unknown): number | string | null {
  try {
    const n = BigInt(raw as string | number);
    return n <= BigInt(Number.MAX_SAFE_INTEGER) && n >= BigInt(Number.MIN_SAFE_INTEGER) ? Number(n) : n.toString();
  } catch {
    return null;
  }
}

function idHex(raw: string | undefined, ids: IdEncoding): string {
  if (raw === undefined || raw === '') return '';
  return ids === 'hex' ? raw.toLowerCase() : Buffer.from(raw, 'base64').toString('hex');
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
