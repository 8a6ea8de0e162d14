import { describeJsonKind, isJsonObject, type DecodeResult, type EventFormat, type JsonEvent } from './decoded-event.js';

/** `System` fields Sigma's Windows logsources key on; event data never overwrites them. */
const CORE_FIELDS = ['EventID', 'Channel', 'Computer', 'Provider_Name', 'TimeCreated'] as const;

/** Attributes of an element: evtx_dump's `#attributes` object, or xmltodict-style `@name` keys. */
function attributesOf(element: JsonEvent): [string, unknown][] {
  const out: [string, unknown][] = [];
  const attrs = element['#attributes'];
  if (isJsonObject(attrs)) for (const [k, v] of Object.entries(attrs)) out.push([k, v]);
  for (const [k, v] of Object.entries(element)) if (k.startsWith('@')) out.push([k.slice(1), v]);
  return out;
}

function attribute(element: JsonEvent, name: string): unknown {
  for (const [k, v] of attributesOf(element)) if (k === name) return v;
  return undefined;
}

/** Whether an element holds a value rather than child elements: it has `#text` or nothing but attributes. */
function isValueElement(element: JsonEvent): boolean {
  for (const k of Object.keys(element)) {
    if (k !== '#text' && k !== '#attributes' && !k.startsWith('@')) return false;
  }
  return true;
}

/** An element's value: `#text` when wrapped, null for an empty element, the scalar itself otherwise. */
function textOf(value: unknown): unknown {
  if (!isJsonObject(value)) return value;
  return value['#text'] ?? null;
}

function numericOrSelf(value: unknown): unknown {
  return typeof value === 'string' && /^[0-9]+$/.test(value) ? Number(value) : value;
}

/**
 * `System` children: a value element under its own name, each attribute as `<Element>_<Attribute>`
 * (so `Provider` gives `Provider_Name`, `Execution` gives `Execution_ProcessID`).
 */
function flattenSystem(system: JsonEvent, out: JsonEvent): void {
  for (const [name, value] of Object.entries(system)) {
    if (name === '#attributes' || name.startsWith('@')) continue;
    if (!isJsonObject(value)) {
      setField(out, name, value);
      continue;
    }
    if (Object.hasOwn(value, '#text')) setField(out, name, value['#text']);
    for (const [attr, v] of attributesOf(value)) setField(out, `${name}_${attr}`, v);
  }
}

/**
 * Some providers (Windows Defender) name data items with spaces (`Source Name`) while SigmaHQ rules use
 * the space-free name (`SourceName`); the leaf is stored under both.
 */
function setLeaf(out: JsonEvent, name: string, value: unknown): void {
  setField(out, name, value);
  if (name.includes(' ')) {
    const compact = name.replaceAll(' ', '');
    if (!Object.hasOwn(out, compact)) setField(out, compact, value);
  }
}

/** Names come from the input: `__proto__` would replace the event's prototype instead of adding a field. */
function setField(out: JsonEvent, name: string, value: unknown): void {
  if (name !== '__proto__') out[name] = value;
}

/**
 * Leaves of `EventData`/`UserData` under their own names, at any depth. `<Data Name="X">v</Data>`
 * items (an array or a single element, `@Name` or `#attributes.Name`) become `X: v`; unnamed data
 * items stay a `Data` value (an array when the source had several). Container attributes (`xmlns`,
 * `Name` on `EventData`) are metadata, not fields.
 */
function collectLeaves(container: JsonEvent, out: JsonEvent): void {
  for (const [key, value] of Object.entries(container)) {
    if (key === '#attributes' || key === '#text' || key.startsWith('@')) continue;
    if (Array.isArray(value)) {
      const unnamed: unknown[] = [];
      for (const item of value) {
        if (!isJsonObject(item)) unnamed.push(item);
        else if (isValueElement(item)) addElement(key, item, out, unnamed);
        else collectLeaves(item, out);
      }
      if (unnamed.length > 0) setLeaf(out, key, unnamed);
    } else if (isJsonObject(value)) {
      if (isValueElement(value)) {
        const unnamed: unknown[] = [];
        addElement(key, value, out, unnamed);
        if (unnamed.length > 0) setLeaf(out, key, unnamed[0]);
      } else {
        collectLeaves(value, out);
      }
    } else {
      setLeaf(out, key, value);
    }
  }
}

function addElement(key: string, element: JsonEvent, out: JsonEvent, unnamed: unknown[]): void {
  const name = attribute(element, 'Name');
  if (typeof name === 'string' && name !== '') setLeaf(out, name, textOf(element));
  else unnamed.push(textOf(element));
}

/** Whether an object is an evtx_dump-style Windows event: `{"Event": {"System": {...}, ...}}`. */
export function detectFormat(event: JsonEvent): 'evtx-json' | 'json' {
  const root = event['Event'];
  return isJsonObject(root) && isJsonObject(root['System']) ? 'evtx-json' : 'json';
}

/**
 * Flattens an evtx_dump-style event into the flat field names SigmaHQ Windows rules use: `EventID`
 * (a number when numeric), `Channel`, `Computer`, `Provider_Name`, `TimeCreated` (the SystemTime),
 * the other `System` values, and every `EventData`/`UserData` leaf under its own name (and, for names
 * with spaces, also without them).
 */
export function flattenEvtx(event: JsonEvent): JsonEvent {
  const out: JsonEvent = {};
  const root = event['Event'];
  if (!isJsonObject(root)) return out;
  const system = isJsonObject(root['System']) ? root['System'] : {};
  flattenSystem(system, out);
  for (const section of ['EventData', 'UserData']) {
    const data = root[section];
    if (isJsonObject(data)) collectLeaves(data, out);
  }
  const core: JsonEvent = {
    EventID: numericOrSelf(textOf(system['EventID'])),
    Channel: textOf(system['Channel']),
    Computer: textOf(system['Computer']),
    Provider_Name: isJsonObject(system['Provider']) ? attribute(system['Provider'], 'Name') : undefined,
    TimeCreated: isJsonObject(system['TimeCreated'])
      ? (attribute(system['TimeCreated'], 'SystemTime') ?? textOf(system['TimeCreated']))
      : system['TimeCreated'],
  };
  for (const name of CORE_FIELDS) {
    const value = core[name];
    if (value !== undefined) out[name] = value;
  }
  return out;
}

/**
 * A parsed JSON value → an event: `json` keeps objects as they are, `evtx-json` flattens (and rejects
 * objects that are not evtx-shaped), `auto` flattens only what `detectFormat` recognises.
 */
export function decodeEvent(value: unknown, format: EventFormat): DecodeResult {
  if (!isJsonObject(value)) return { ok: false, error: `expected a JSON object, got ${describeJsonKind(value)}` };
  switch (format) {
    case 'json':
      return { ok: true, event: value };
    case 'evtx-json':
      if (detectFormat(value) !== 'evtx-json') {
        return { ok: false, error: 'expected an evtx JSON event ({"Event": {"System": {...}}})' };
      }
      return { ok: true, event: flattenEvtx(value) };
    case 'auto':
      return { ok: true, event: detectFormat(value) === 'evtx-json' ? flattenEvtx(value) : value };
    default: {
      const never: never = format;
      return { ok: false, error: `unknown event format '${String(never)}'` };
    }
  }
}
