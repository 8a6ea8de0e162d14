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

/**
 * Decoded events of `chunks`; `onParseError` hears of every line or object that gives no event (a line
 * over 1 MiB or not UTF-8 included). The first line decides the layout: one that is not a whole JSON
 * value but starts one means pretty-printed objects, read over the whole input. NDJSON that later
 * turns pretty-printed switches to objects at a line holding only `{` or `[` (how pretty-printers open
 * a value); any other bad line stays one parse error, so a live stream is never held back by one.
 */
export async function* readEvents(
  chunks: AsyncIterable<Uint8Array | string>,
  format: InputFormat,
  onParseError: (reason: string) => void,
): AsyncGenerator<JsonEvent> {
  // `now` only anchors syslog timestamps without a year: the start of the read is close enough.
  const options = { now: Date.now(), tzOffsetMinutes: 0 };
  const decode = (line: string) => decodeLine(line, format, options);
  const jsonish = format === 'auto' || format === 'json' || format === 'evtx-json';
  const splitter = new LineSplitter();
  let mode = (jsonish ? 'undecided' : 'lines') as 'undecided' | 'lines' | 'objects';
  const held: string[] = [];
  const handle = function* (frames: LineFrame[]) {
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
      const decoded = decode(frame.line);
      if (decoded.ok) yield decoded.event;
      else onParseError(decoded.error);
    }
  };
  for await (const chunk of chunks) yield* handle(splitter.push(chunk));
  yield* handle(splitter.end());
  if (mode !== 'objects') return;
  const eventFormat = format === 'evtx-json' ? 'evtx-json' : format === 'json' ? 'json' : 'auto';
  for (const item of readJsonObjects(held.join('\n'))) {
    if (!item.ok) {
      onParseError(item.error);
      continue;
    }
    const decoded = decodeEvent(item.event, eventFormat);
    if (decoded.ok) yield decoded.event;
    else onParseError(decoded.error);
  }
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

function opensPrettyValue(line: string): boolean {
  const t = line.trim();
  return t === '{' || t === '[';
}
