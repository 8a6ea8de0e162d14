// `sigmad eval` over chunks of lines (issue 19 §3): each chunk goes to a chunk worker with room, or is
// detected on this thread, which thus works from the moment its own rules are built while the workers
// build theirs, and then takes whatever they have no room for. Results are written in input order with
// the correlation results of each line right after its detections: the bytes of a one-thread run.
import { setImmediate as turn } from 'node:timers/promises';
import { splitLines } from '../protocol/index.js';
import type { InputFormat } from '../protocol/index.js';
import type { ChunkCorrelation, ChunkResult } from '../streams/index.js';
import type { ChunkPool } from './eval-chunk-pool.js';
import type { ChunkItem } from './eval-chunks.js';
import { isJsonish, layoutOf, type InputLayout } from './read-events.js';

/**
 * Chunks read ahead of the oldest unwritten one beyond what the workers hold: this thread keeps
 * detecting while a worker's chunk is still out (each chunk holds its input and output, about 0.4 MB),
 * also through a worker's first, cold chunks (its code not yet optimised, its first collections).
 */
const AHEAD_OF_WORKERS = 48;

export interface ChunkedEval {
  readonly format: InputFormat;
  /** Detects a chunk on this thread. */
  detect(bytes: Uint8Array): ChunkResult;
  readonly pool?: ChunkPool;
  /** The output lines of the correlation results a correlated line fires. */
  correlate(c: ChunkCorrelation): readonly string[];
  write(part: Uint8Array | string): Promise<void>;
  /** A line over the length limit after the input turned into pretty-printed objects. */
  onParseError(): void;
}

export interface ChunkedRun {
  readonly events: number;
  readonly parseErrors: number;
  /** Detection and correlation lines written. */
  readonly matches: number;
  /** Seconds spent detecting (on every thread) and correlating. */
  readonly seconds: number;
  /** The input from its first pretty-printed object on, when it turned so: read it as objects. */
  readonly rest?: AsyncIterable<Uint8Array>;
}

interface Entry {
  readonly item: ChunkItem;
  /** Detected on this thread, or by a worker once `pending` settled. */
  result?: ChunkResult;
  pending?: Promise<ChunkResult>;
  /** `pending` settled (a rejected chunk is detected on this thread when its turn comes). */
  settled?: true;
  /** The input is pretty-printed objects from this chunk on. */
  readonly objects?: true;
}

export async function evalChunks(chunks: AsyncIterable<ChunkItem>, o: ChunkedEval): Promise<ChunkedRun> {
  const run = { events: 0, parseErrors: 0, matches: 0, seconds: 0 };
  const queue: Entry[] = [];
  const input = chunks[Symbol.asyncIterator]();
  const ahead = (o.pool?.capacity ?? 0) + AHEAD_OF_WORKERS;
  let layout: InputLayout = isJsonish(o.format) ? 'undecided' : 'lines';

  const dispatch = (bytes: Uint8Array): Entry => {
    const pending = o.pool?.offer(bytes, Date.now());
    if (pending === undefined) return { item: bytes, result: o.detect(bytes) };
    const entry: Entry = { item: bytes, pending };
    pending.then(
      (r) => {
        entry.result = r;
        entry.settled = true;
      },
      () => void (entry.settled = true),
    );
    return entry;
  };

  /** Writes the oldest entry out; the bytes from which the input is objects when it turned so. */
  const settle = async (entry: Entry): Promise<Uint8Array | undefined> => {
    const { item } = entry;
    if (!(item instanceof Uint8Array)) {
      run.parseErrors++;
      return undefined;
    }
    if (entry.objects === true) return item;
    // About to wait for a worker: one still building its rules gives its chunks back to be detected here.
    if (entry.pending !== undefined && entry.settled !== true) o.pool?.reclaim();
    const r = entry.result ?? (await entry.pending?.catch(() => undefined)) ?? o.detect(item);
    run.events += r.events;
    run.parseErrors += r.parseErrors;
    run.matches += r.detections;
    const t0 = performance.now();
    let from = 0;
    for (const c of r.correlate) {
      if (c.at > from) await o.write(r.output.subarray(from, c.at));
      from = c.at;
      const fired = o.correlate(c);
      run.matches += fired.length;
      if (fired.length > 0) await o.write(fired.join(''));
    }
    if (r.output.length > from) await o.write(r.output.subarray(from));
    run.seconds += r.seconds + (r.correlate.length > 0 ? (performance.now() - t0) / 1000 : 0);
    return r.prettyAt !== undefined ? item.subarray(r.prettyAt) : undefined;
  };

  const ready = (e: Entry): boolean => e.pending === undefined || e.settled === true;
  let objects: Uint8Array | undefined;
  reading: for (;;) {
    while (queue.length > 0 && (ready(queue[0] as Entry) || queue.length > ahead)) {
      objects = await settle(queue.shift() as Entry);
      if (objects !== undefined) break reading;
    }
    // A file read with readSync never leaves the microtask queue: let worker messages (ready, results) in.
    if (o.pool !== undefined) await turn();
    const next = await input.next();
    if (next.done === true) break;
    const item = next.value;
    if (!(item instanceof Uint8Array)) queue.push({ item });
    else if (layout === 'undecided' && (layout = layoutOf(splitLines(item), o.format)) === 'objects') {
      queue.push({ item, objects: true });
      break;
    } else queue.push(dispatch(item));
  }
  while (objects === undefined && queue.length > 0) objects = await settle(queue.shift() as Entry);
  if (objects === undefined) return run;
  return { ...run, rest: restOf(objects, queue.splice(0).map((e) => e.item), input, o.onParseError) };
}

/** What is left of the input from `first` on: chunks read but not written, then the unread rest. */
async function* restOf(first: Uint8Array, read: readonly ChunkItem[], unread: AsyncIterator<ChunkItem>, onSkipped: () => void): AsyncGenerator<Uint8Array> {
  async function* items(): AsyncGenerator<ChunkItem> {
    yield* read;
    for (let next = await unread.next(); next.done !== true; next = await unread.next()) yield next.value;
  }
  yield first;
  for await (const item of items()) {
    if (item instanceof Uint8Array) yield item;
    else onSkipped();
  }
}
