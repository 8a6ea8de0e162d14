// Decoding an OTLP `ExportLogsServiceRequest` (protobuf or OTLP/JSON) into the flattened events of
// daemon-semantics §17.3, or the message of its 400 answer.
import type { UnitLines } from '../decode/index.js';
import { flattenJsonLogs } from './logs-json.js';
import { exportLogsRequestType } from './logs-proto.js';
import { checkRequest, flattenLogs } from './logs-object.js';
import type { OtlpLogsRequest } from './logs-object.js';
import { flattenProtobufLogs } from './logs-wire.js';
import { UNCOMMON } from './record-text.js';

/**
 * A decoded request (its events as UTF-8 lines when a byte-level reader read it, else strings), or the
 * message of the 400 answer (daemon-semantics §17.1 step 3).
 */
export type OtlpDecoded = { readonly ok: true; readonly events: UnitLines } | { readonly ok: false; readonly error: string };

/**
 * Decode a protobuf `ExportLogsServiceRequest` into one JSON event line per LogRecord: read straight
 * from the wire when it is encoded as collectors do, else by protobufjs (same events, its errors).
 */
export function decodeProtobufLogs(body: Uint8Array): OtlpDecoded {
  return fastOr(flattenProtobufLogs, decodeProtobufjsLogs, body);
}

/** The events a byte-level reader reads, or the general decoder's answer where it leaves the body (`UNCOMMON`). */
function fastOr(fast: (body: Uint8Array) => UnitLines, general: (body: Uint8Array) => OtlpDecoded, body: Uint8Array): OtlpDecoded {
  try {
    return { ok: true, events: fast(body) };
  } catch (error) {
    if (error !== UNCOMMON) throw error;
  }
  return general(body);
}

/** `decodeProtobufLogs` by protobufjs' message and object trees: any encoding, exact decode errors. */
export function decodeProtobufjsLogs(body: Uint8Array): OtlpDecoded {
  let request: OtlpLogsRequest;
  try {
    const message = exportLogsRequestType().decode(body);
    // Strings keep 64-bit nanoseconds exact; bytes come out base64, as OTLP/JSON spells bytesValue.
    request = exportLogsRequestType().toObject(message, { longs: String, bytes: String, oneofs: false }) as OtlpLogsRequest;
  } catch (error) {
    return { ok: false, error: `protobuf decode error: ${messageOf(error)}` };
  }
  return { ok: true, events: flattenLogs(request, 'base64') };
}

/**
 * Decode an OTLP/JSON `ExportLogsServiceRequest` (trace and span ids in hex, as the encoding says):
 * read byte by byte when it is written as exporters write it, else parsed whole (same events, its errors).
 */
export function decodeJsonLogs(body: Uint8Array): OtlpDecoded {
  return fastOr(flattenJsonLogs, decodeJsonLogsByObject, body);
}

/** `decodeJsonLogs` by `JSON.parse` of the whole body, its schema check and an object walk: exact errors. */
export function decodeJsonLogsByObject(body: Uint8Array): OtlpDecoded {
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

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
