// An OTLP `ExportLogsServiceRequest` as plain objects (OTLP/JSON parsed, or protobufjs' object tree),
// its typebox schema, and the flattening of its LogRecords into one JSON event each (daemon-semantics
// §17.3). The byte-level readers (`logs-wire.ts`, `logs-json.ts`) write the same texts faster and
// come here for what they leave to objects.
import Type from 'typebox';
import { nanosToRfc3339 } from './otlp-time.js';
import { compileOnUse } from '../compile-on-use.js';

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
const Resource = Type.Object({ attributes: Attributes });
const Scope = Type.Object({ name: Type.Optional(Type.String()), version: Type.Optional(Type.String()) });

/** The fields of `ExportLogsServiceRequest` sigmad maps; camelCase as OTLP/JSON spells them. */
const OtlpLogsRequest = Type.Object({
  resourceLogs: Type.Optional(
    Type.Array(
      Type.Object({
        resource: Type.Optional(Resource),
        scopeLogs: Type.Optional(Type.Array(Type.Object({ scope: Type.Optional(Scope), logRecords: Type.Optional(Type.Array(LogRecord)) }))),
      }),
    ),
  ),
});
export type OtlpLogsRequest = Type.Static<typeof OtlpLogsRequest>;
export type OtlpLogRecord = Type.Static<typeof LogRecord>;
export type OtlpResource = Type.Static<typeof Resource>;
export type OtlpScope = Type.Static<typeof Scope>;

export const checkRequest = compileOnUse(OtlpLogsRequest);
export const checkLogRecord = compileOnUse(LogRecord);
export const checkResource = compileOnUse(Resource);
export const checkScope = compileOnUse(Scope);

/** How the ids and `bytesValue`s of a decoded request are spelled. */
export type IdEncoding = 'hex' | 'base64';

/** The keys §17.3 adds after a record's own: `resource.<key>`, then the scope's name and version. */
export type EventTail = readonly (readonly [string, unknown])[];

/** One JSON text per LogRecord, keys inserted in the order of §17.3 (later keys win a collision). */
export function flattenLogs(request: OtlpLogsRequest, ids: IdEncoding): string[] {
  const events: string[] = [];
  for (const resourceLogs of request.resourceLogs ?? []) {
    const resource = resourceKeys(resourceLogs.resource, ids);
    for (const scopeLogs of resourceLogs.scopeLogs ?? []) {
      const tail = eventTail(resource, scopeLogs.scope?.name ?? '', scopeLogs.scope?.version ?? '');
      for (const record of scopeLogs.logRecords ?? []) events.push(eventText(record, tail, ids));
    }
  }
  return events;
}

/** A resource's attributes as the `resource.<key>` pairs of its events. */
export function resourceKeys(resource: OtlpResource | undefined, ids: IdEncoding): [string, unknown][] {
  return Object.entries(attributesOf(resource?.attributes, ids)).map(([key, value]) => [`resource.${key}`, value]);
}

/** The resource pairs followed by the scope's name and version where not empty. */
export function eventTail(resource: EventTail, name: string, version: string): EventTail {
  const tail = [...resource];
  if (name !== '') tail.push(['scope.name', name]);
  if (version !== '') tail.push(['scope.version', version]);
  return tail;
}

/** One record's event text: its own keys, then the tail's (later keys win in place). */
export function eventText(record: OtlpLogRecord, tail: EventTail, ids: IdEncoding): string {
  const event: Record<string, unknown> = {};
  const time = nanosToRfc3339(record.timeUnixNano);
  if (time !== undefined) event['timestamp'] = time;
  const observed = nanosToRfc3339(record.observedTimeUnixNano);
  if (observed !== undefined) event['observed_timestamp'] = observed;
  if (record.severityNumber !== undefined && record.severityNumber !== 0) event['severity_number'] = record.severityNumber;
  if (record.severityText !== undefined && record.severityText !== '') event['severity_text'] = record.severityText;
  const body = bodyOf(record.body, ids);
  if (body !== undefined && 'entries' in body) assignAttributes(event, body.entries, ids);
  else if (body !== undefined) event['body'] = body.value;
  const traceId = idHex(record.traceId, ids);
  if (traceId !== '') event['trace_id'] = traceId;
  const spanId = idHex(record.spanId, ids);
  if (spanId !== '') event['span_id'] = spanId;
  assignAttributes(event, record.attributes, ids);
  for (const [key, value] of tail) event[key] = value;
  return JSON.stringify(event);
}

/** What §17.3 makes of a record's body: its kvlist's entries (keys at the top level), its value, or nothing. */
export type RecordBody = { readonly entries: readonly unknown[] } | { readonly value: unknown } | undefined;

export function bodyOf(body: unknown, ids: IdEncoding): RecordBody {
  if (!isObject(body)) return undefined;
  if (isObject(body['kvlistValue'])) return { entries: listOf(body['kvlistValue']) };
  return hasValue(body) ? { value: anyValue(body, ids) } : undefined;
}

const VALUE_KEYS = ['stringValue', 'boolValue', 'intValue', 'doubleValue', 'arrayValue', 'kvlistValue', 'bytesValue'] as const;

function hasValue(value: Record<string, unknown>): boolean {
  return VALUE_KEYS.some((k) => value[k] !== undefined);
}

/** AnyValue → JSON (§17.3): ints exact when they fit a double's integers, else their decimal text. */
export function anyValue(value: unknown, ids: IdEncoding): unknown {
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
  if (typeof value['bytesValue'] === 'string') return bytesHex(value['bytesValue']);
  return null;
}

/** A `bytesValue` (base64, as OTLP/JSON and protobufjs' objects spell it) in hex. */
export function bytesHex(base64: string): string {
  return Buffer.from(base64, 'base64').toString('hex');
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

/** An `intValue` (a JSON number or decimal string): a number while exact, else its decimal text; null if not an integer. */
export function intOf(raw: unknown): number | string | null {
  if (Number.isSafeInteger(raw)) return raw as number;
  try {
    const n = BigInt(raw as string | number);
    return n <= BigInt(Number.MAX_SAFE_INTEGER) && n >= BigInt(Number.MIN_SAFE_INTEGER) ? Number(n) : n.toString();
  } catch {
    return null;
  }
}

/** A trace or span id in lowercase hex ('' when absent). */
export function idHex(raw: string | undefined, ids: IdEncoding): string {
  if (raw === undefined || raw === '') return '';
  return ids === 'hex' ? raw.toLowerCase() : bytesHex(raw);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
