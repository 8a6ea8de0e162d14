// `sigmad eval` in chunks (issue 19 §3): the chunks cover the input's lines exactly, and the written bytes
// are those of evaluating event by event on one thread, whatever the chunk size, when a worker joins,
// in which order its chunks come back, and when it fails.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { CorrelationRuntime } from '../../actors/index.js';
import { startChunkPool, type ChunkPool } from '../../cli/eval-chunk-pool.js';
import { evalChunks } from '../../cli/eval-chunked.js';
import { lineChunks, streamReader, type ChunkItem } from '../../cli/eval-chunks.js';
import { readEvents } from '../../cli/read-events.js';
import { readRuleSources } from '../../cli/rule-files.js';
import { splitLines, type LineFrame } from '../../protocol/index.js';
import { buildTimestampFields, DEFAULT_CORRELATION_SETTINGS, type RuleSet } from '../../sigma/index.js';
import { buildRuleSetFrom, createBatchDetector, detectChunk, detectRules, EventDetector } from '../../streams/index.js';
import type { ChunkResult, DetectRules, DetectSettings, RuleInputs } from '../../streams/index.js';
import { ensureBuilt, FIXTURES, ROOT, tempDir } from '../e2e/harness.js';
import { evalInput } from './eval-input.js';

const encoder = new TextEncoder();

async function* pieces(bytes: Uint8Array, cuts: readonly number[]): AsyncGenerator<Uint8Array> {
  let at = 0;
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    if (cut <= at || cut >= bytes.length) continue;
    yield bytes.subarray(at, cut);
    at = cut;
  }
  if (at < bytes.length) yield bytes.subarray(at);
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** What a frame says, without its line number (chunks count lines from their own start). */
const said = (f: LineFrame) => (f.ok ? f.line : f.reason);

describe('lineChunks', () => {
  it('cuts the input into chunks of whole lines that frame as the whole input does, a line over the limit reported once as skipped', async () => {
    const line = fc.oneof(fc.stringMatching(/^[a-zé{} \r]{0,12}$/), fc.stringMatching(/^x{20,70}\r?$/));
    await fc.assert(
      fc.asyncProperty(fc.array(line, { maxLength: 30 }), fc.boolean(), fc.integer({ min: 1, max: 48 }), fc.array(fc.nat(2_000), { maxLength: 20 }), async (lines, finalNewline, chunkBytes, cuts) => {
        const maxLine = 24;
        const bytes = encoder.encode(lines.join('\n') + (finalNewline ? '\n' : ''));
        const items = await collect(lineChunks(streamReader(pieces(bytes, cuts)), chunkBytes, maxLine));
        const framed = items.flatMap((item: ChunkItem) => (item instanceof Uint8Array ? splitLines(item, { maxLineBytes: maxLine }).map(said) : ['too_long']));
        expect(framed).toEqual(splitLines(bytes, { maxLineBytes: maxLine }).map(said));
        items.slice(0, -1).forEach((item) => {
          if (item instanceof Uint8Array) expect(item.at(-1)).toBe(0x0a);
        });
      }),
      { numRuns: 200 },
    );
  });
});

let inputs: RuleInputs;
let ruleSet: RuleSet;
let rules: DetectRules;
const SETTINGS: DetectSettings = { format: 'auto', syslogTzMinutes: 0, includeEvent: true };

beforeAll(async () => {
  const { sources } = await readRuleSources([join(FIXTURES, 'rules')]);
  inputs = { sources, pipelines: [], correlation: { ...DEFAULT_CORRELATION_SETTINGS, eventMode: 'full' }, emitReferenced: false };
  ruleSet = buildRuleSetFrom(inputs);
  rules = detectRules(ruleSet);
});

const runtime = () =>
  new CorrelationRuntime(ruleSet.correlations.correlations, {
    timestampFields: buildTimestampFields([], ruleSet.correlations.ruleTimestampFields),
    timestampFallback: 'wallclock',
    maxStateEntries: 100_000,
    onNotice: () => undefined,
  });

/** The reference: eval's one-thread path, event by event. */
async function oneThread(text: string): Promise<{ out: string; parseErrors: number }> {
  const detector = new EventDetector({ includeEvent: true });
  const correlation = runtime();
  let out = '';
  let parseErrors = 0;
  for await (const event of readEvents(pieces(encoder.encode(text), []), 'auto', () => parseErrors++, 0)) {
    const matched = detector.detect(rules, event, (t) => void (out += `${t}\n`));
    if (matched !== undefined) for (const r of correlation.onEvent(matched, event, 0)) out += `${JSON.stringify(r)}\n`;
  }
  return { out, parseErrors };
}

/**
 * A worker that builds its rules for `joinAfter` macrotasks (as a real one's message arrives), holds up
 * to `room` chunks (queued from the start, answered once it has built) and answers each after `delays[i]`
 * macrotasks (so out of order), failing the `failAt`-th chunk it took; `reclaim` takes back the chunks it
 * holds while it builds, after which it takes none until built.
 */
function fakePool(detect: (bytes: Uint8Array) => ChunkResult, joinAfter: number, room: number, delays: readonly number[], failAt: number): ChunkPool & { taken: number; reclaimed: number } {
  let held = 0;
  let refused = false;
  /** Rejecters of the chunks taken while building. */
  const early = new Set<() => void>();
  const build = (left: number): void => (left > 0 ? void setImmediate(() => build(left - 1)) : void (pool.ready = 1));
  const pool = {
    capacity: room,
    ready: 0,
    taken: 0,
    reclaimed: 0,
    load: () => undefined,
    offer(bytes: Uint8Array) {
      if ((pool.ready === 0 && refused) || held >= room) return undefined;
      const i = pool.taken++;
      held++;
      return new Promise<ChunkResult>((resolve, reject) => {
        let back = false;
        const takeBack = (): void => {
          back = true;
          held--;
          reject(new Error('taken back'));
        };
        if (pool.ready === 0) early.add(takeBack);
        const answer = (left: number): void => {
          if (back) return;
          if (pool.ready === 0 || left > 0) return void setImmediate(() => answer(pool.ready === 0 ? left : left - 1));
          early.delete(takeBack);
          held--;
          if (i === failAt) reject(new Error('worker died'));
          else resolve(detect(bytes.slice()));
        };
        answer(delays[i % delays.length] ?? 0);
      });
    },
    reclaim() {
      if (pool.ready !== 0 || early.size === 0) return;
      for (const takeBack of early) takeBack();
      pool.reclaimed += early.size;
      early.clear();
      refused = true;
    },
    close: () => Promise.resolve(),
  };
  build(joinAfter);
  return pool;
}

describe('evalChunks', () => {
  it('writes the bytes of the one-thread run whatever the chunk size, join point, answer order, a failed chunk and chunks taken back', async () => {
    const inputs = new Map<string, { text: string; reference: { out: string; parseErrors: number } }>();
    /** Runs where the worker took chunks, where one of them failed, and where chunks were taken back from it. */
    let joined = 0;
    let failed = 0;
    let reclaimed = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          n: fc.integer({ min: 0, max: 400 }),
          long: fc.boolean(),
          pretty: fc.boolean(),
          chunkBytes: fc.integer({ min: 64, max: 16_384 }),
          joinAfter: fc.nat(20),
          room: fc.integer({ min: 1, max: 4 }),
          delays: fc.array(fc.nat(6), { minLength: 1, maxLength: 8 }),
          failAt: fc.integer({ min: -1, max: 10 }),
        }),
        async ({ n, long, pretty, chunkBytes, joinAfter, room, delays, failAt }) => {
          const key = `${n} ${long} ${pretty}`;
          if (!inputs.has(key)) {
            const text = evalInput(n, { long, pretty });
            inputs.set(key, { text, reference: await oneThread(text) });
          }
          const { text, reference } = inputs.get(key) as { text: string; reference: { out: string; parseErrors: number } };
          const batch = createBatchDetector(SETTINGS);
          const detect = (bytes: Uint8Array) => detectChunk(batch, rules, bytes, 0, true);
          const pool = fakePool(detect, joinAfter, room, delays, failAt);
          const correlation = runtime();
          const parts: Buffer[] = [];
          let restErrors = 0;
          const run = await evalChunks(lineChunks(streamReader(pieces(encoder.encode(text), [])), chunkBytes), {
            format: 'auto',
            detect,
            pool,
            correlate: (c) => correlation.onEvent(c.matched, c.event, 0).map((r) => `${JSON.stringify(r)}\n`),
            write: (part) => Promise.resolve(void parts.push(Buffer.from(part))),
            onParseError: () => restErrors++,
          });
          // The pretty-printed tail is read as objects, as eval-command does.
          const detector = new EventDetector({ includeEvent: true });
          if (run.rest !== undefined) {
            for await (const event of readEvents(run.rest, 'auto', () => restErrors++, 0, 'objects')) {
              const matched = detector.detect(rules, event, (t) => void parts.push(Buffer.from(`${t}\n`)));
              if (matched !== undefined) for (const r of correlation.onEvent(matched, event, 0)) parts.push(Buffer.from(`${JSON.stringify(r)}\n`));
            }
          }
          expect(Buffer.concat(parts).toString()).toBe(reference.out);
          expect(run.parseErrors + restErrors).toBe(reference.parseErrors);
          expect(run.rest !== undefined).toBe(pretty);
          if (pool.taken > 0) joined++;
          if (failAt >= 0 && failAt < pool.taken) failed++;
          if (pool.reclaimed > 0) reclaimed++;
        },
      ),
      { numRuns: 40 },
    );
    expect(joined).toBeGreaterThan(5);
    expect(failed).toBeGreaterThan(0);
    expect(reclaimed).toBeGreaterThan(0);
  }, 60_000);
});

describe('chunk workers', () => {
  beforeAll(ensureBuilt, 180_000);
  const SCRIPT = pathToFileURL(join(ROOT, 'dist/streams/detect/chunk-worker.js'));
  const until = async <T>(f: () => T | undefined): Promise<T> => {
    for (let v = f(); ; v = f()) {
      if (v !== undefined) return v;
      await new Promise((r) => setTimeout(r, 20));
    }
  };

  it('queue chunks once sent the rules, give them back while building, answer as this thread does once built, and report a build that fails', async () => {
    const failures: string[] = [];
    const pool = startChunkPool(1, { settings: SETTINGS, watchPretty: true }, (_w, error) => failures.push(error), SCRIPT);
    const broken = startChunkPool(1, { settings: SETTINGS, watchPretty: true }, (_w, error) => failures.push(error), SCRIPT);
    try {
      const bytes = encoder.encode(evalInput(300, { pretty: true }));
      expect(pool.offer(bytes, 0)).toBeUndefined();
      pool.load(inputs);
      broken.load({ ...inputs, pipelines: [{ ref: 'no-such-pipeline' }] });
      // Sent the rules, a worker queues chunks while it builds; taken back, they reject and it takes none until built.
      const early = pool.offer(bytes, 0);
      expect(early).toBeDefined();
      pool.reclaim();
      expect(pool.offer(bytes, 0)).toBeUndefined();
      await expect(early).rejects.toThrow(/taken back/);
      const answer = await (await until(() => pool.offer(bytes, 0)));
      const inline = detectChunk(createBatchDetector(SETTINGS), rules, bytes, 0, true);
      expect(answer.correlate.length).toBeGreaterThan(0);
      expect(answer.prettyAt).toBeGreaterThan(0);
      expect({ ...answer, seconds: 0 }).toEqual({ ...inline, seconds: 0 });
      await until(() => (failures.length > 0 ? true : undefined));
      expect(failures).toEqual([expect.stringMatching(/no-such-pipeline/)]);
      expect(broken.offer(bytes, 0)).toBeUndefined();
    } finally {
      await Promise.all([pool.close(), broken.close()]);
    }
  }, 60_000);

  it("build from main's cache entry without the rule texts, and from the texts when the entry does not build", async () => {
    // Stored by dist/'s cache module, the worker's: a key covers the engine's code, which differs from source's.
    const cache = (await import(pathToFileURL(join(ROOT, 'dist/streams/detect/rule-cache.js')).href)) as typeof import('../../streams/detect/rule-cache.js');
    const { shared } = cache.buildRuleSetCached(inputs, { dir: tempDir('chunk-entry'), store: true });
    if (shared === undefined) throw new Error('no shared entry');
    const failures: string[] = [];
    const fromEntry = startChunkPool(1, { settings: SETTINGS, watchPretty: true }, (_w, error) => failures.push(error), SCRIPT);
    const fromTexts = startChunkPool(1, { settings: SETTINGS, watchPretty: true }, (_w, error) => failures.push(error), SCRIPT);
    try {
      // No texts beside the entry: answering as this thread does shows the worker built from the entry alone.
      fromEntry.load({ ...inputs, sources: [], shared });
      // An entry whose head no longer deserialises: the worker asks for the texts and builds from them.
      fromTexts.load({ ...inputs, shared: { ...shared, head: new Uint8Array(new SharedArrayBuffer(shared.head.length)) } });
      const bytes = encoder.encode(evalInput(300, { pretty: false }));
      const inline = detectChunk(createBatchDetector(SETTINGS), rules, bytes, 0, true);
      expect(inline.detections).toBeGreaterThan(0);
      for (const pool of [fromEntry, fromTexts]) {
        const built = async (): Promise<ChunkResult> => {
          for (;;) {
            const answer = await pool.offer(bytes, 0)?.catch(() => undefined);
            if (answer !== undefined) return answer;
            await new Promise((r) => setTimeout(r, 20));
          }
        };
        expect({ ...(await built()), seconds: 0 }).toEqual({ ...inline, seconds: 0 });
      }
      expect(failures).toEqual([]);
    } finally {
      await Promise.all([fromEntry.close(), fromTexts.close()]);
    }
  }, 60_000);
});
