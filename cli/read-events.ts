// The events `sigmad eval` reads from a file or stdin: NDJSON lines, or concatenated / pretty-printed
// JSON objects (as some SigmaHQ regression files are), decoded in the chosen input format.
import {
  decodeEvent,
  decodeLine,
  LineSplitter,
  readJsonObjects,
  type InputFormat,
  type JsonEvent,
  type LineFrame,
} from '../protocol/index.js';
import { opensPrettyValue } from '../streams/index.js';

/** One input item: an NDJSON line still to decode, or an event read from pretty-printed objects. */
type EventItem = { readonly line: string } | { readonly event: JsonEvent };

/** How the input is laid out: decided by its first line, `objects` for the rest once NDJSON turns pretty-printed. */
export type InputLayout = 'undecided' | 'lines' | 'objects';

/**
 * Decoded events of `chunks` (see `readEventItems`), decoded on this thread with syslog years anchored
 * at `now`; `layout` is `objects` for the rest of an input that turned pretty-printed.
 */
export async function* readEvents(
  chunks: AsyncIterable<Uint8Array | string>,
  format: InputFormat,
  onParseError: (reason: string) => void,
  now = Date.now(),
  layout: InputLayout = 'undecided',
): AsyncGenerator<JsonEvent> {
  const options = { now, tzOffsetMinutes: 0 };
  for await (const items of readEventItems(chunks, format, onParseError, layout)) {
    for (const item of items) {
      if ('event' in item) {
        yield item.event;
        continue;
      }
      const decoded = decodeLine(item.line, format, options);
      if (decoded.ok) yield decoded.event;
      else onParseError(decoded.error);
    }
  }
}

/**
 * The items of `chunks`, a list per chunk read, lines left to `readEvents` to decode; `onParseError` hears of every line or object that gives no event (a line
 * over 1 MiB or not UTF-8 included). The first line decides the layout: one that is not a whole JSON
 * value but starts one means pretty-printed objects, read over the whole input. NDJSON that later
 * turns pretty-printed switches to objects at a line holding only `{` or `[` (how pretty-printers open
 * a value); any other bad line stays one parse error, so a live stream is never held back by one.
 */
async function* readEventItems(
  chunks: AsyncIterable<Uint8Array | string>,
  format: InputFormat,
  onParseError: (reason: string) => void,
  layout: InputLayout = 'undecided',
): AsyncGenerator<EventItem[]> {
  const jsonish = isJsonish(format);
  const splitter = new LineSplitter();
  let mode: InputLayout = jsonish ? layout : 'lines';
  const held: string[] = [];
  const handle = (frames: LineFrame[]): EventItem[] => {
    const items: EventItem[] = [];
    for (const frame of frames) {
      if (!frame.ok) {
        onParseError(frame.reason === 'too_long' ? `line ${frame.lineNo} exceeds 1 MiB` : `line ${frame.lineNo} is not UTF-8`);
        continue;
      }
      if (mode === 'objects') {
        held.push(frame.line);
        continue;
      }
      if (mode === 'undecided') {
        if (startsPrettyPrinted(frame.line)) {
          mode = 'objects';
          held.push(frame.line);
          continue;
        }
        mode = 'lines';
      } else if (jsonish && opensPrettyValue(frame.line)) {
        mode = 'objects';
        held.push(frame.line);
        continue;
      }
      items.push({ line: frame.line });
    }
    return items;
  };
  for await (const chunk of chunks) yield handle(splitter.push(chunk));
  yield handle(splitter.end());
  if (mode !== 'objects') return;
  const eventFormat = format === 'evtx-json' ? 'evtx-json' : format === 'json' ? 'json' : 'auto';
  const events: EventItem[] = [];
  for (const item of readJsonObjects(held.join('\n'))) {
    if (!item.ok) {
      onParseError(item.error);
      continue;
    }
    const decoded = decodeEvent(item.event, eventFormat);
    if (decoded.ok) events.push({ event: decoded.event });
    else onParseError(decoded.error);
  }
  yield events;
}

/** Whether a JSON input format is read (pretty-printed objects are possible). */
export function isJsonish(format: InputFormat): boolean {
  return format === 'auto' || format === 'json' || format === 'evtx-json';
}

/** The layout the first line of `frames` decides (see readEventItems), or undecided when no line is whole and UTF-8. */
export function layoutOf(frames: readonly LineFrame[], format: InputFormat): InputLayout {
  if (!isJsonish(format)) return 'lines';
  const first = frames.find((f) => f.ok);
  return first === undefined ? 'undecided' : startsPrettyPrinted(first.line) ? 'objects' : 'lines';
}

function startsPrettyPrinted(line: string): boolean {
  const t = line.trimStart();
  if (!t.startsWith('{') && !t.startsWith('[')) return false;
  try {
    JSON.parse(line);
    return false;
  } catch {
    return true;
  }
}
