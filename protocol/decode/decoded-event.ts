import Type, { type Static } from 'typebox';

/** A decoded event: a JSON object. Values stay `unknown` until the engine's field accessor reads them. */
const JsonEventSchema = Type.Record(Type.String(), Type.Unknown());
export type JsonEvent = Static<typeof JsonEventSchema>;

/** What decoding one record produced. Decoders report problems as data; they never throw. */
export type DecodeResult = { readonly ok: true; readonly event: JsonEvent } | { readonly ok: false; readonly error: string };

export function isJsonObject(value: unknown): value is JsonEvent {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function describeJsonKind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

/** How a parsed JSON object becomes an event (`decodeEvent`). */
const EventFormatSchema = Type.Union([Type.Literal('json'), Type.Literal('evtx-json'), Type.Literal('auto')]);
export type EventFormat = Static<typeof EventFormatSchema>;

/** How an input line becomes an event (`decodeLine`; the `daemon.input.format` values we support). */
export const InputFormatSchema = Type.Union([
  Type.Literal('auto'),
  Type.Literal('json'),
  Type.Literal('evtx-json'),
  Type.Literal('syslog'),
  Type.Literal('plain'),
]);
export type InputFormat = Static<typeof InputFormatSchema>;
