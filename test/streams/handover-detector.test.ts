// The hand-over detector: the calling thread evaluates until the pool has started, then the pool does
// (with `shareWhenBusy`, the calling thread takes what the full pool has no room for); reloads wait for
// the pool; a pool that never starts leaves detection on the calling thread; once the pool serves, a
// calling thread that no longer evaluates releases its evaluators.
import fc from 'fast-check';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { lineTexts } from '../../protocol/index.js';
import { handoverDetector } from '../../streams/index.js';
import type { DetectedBatch, Detector } from '../../streams/index.js';
import type { RuleSet } from '../../sigma/index.js';

const log = pino({ level: 'silent' });
const RULES = {} as RuleSet;
const INPUTS = { sources: [], pipelines: [], correlation: {} as never, emitReferenced: false };

/** A detector that records what it was asked; pool batches settle when the test says so. */
function fake(name: string, parallelism: number, deferred: boolean) {
  const calls: string[] = [];
  const open: (() => void)[] = [];
  const batch = (lines: readonly string[]): DetectedBatch =>
    ({ parseErrors: [], texts: lines.map((l) => `${name}:${l}`), textLines: new Int32Array(0), textRules: new Int32Array(0), correlate: [], rulesPrunedByLogsource: 0 }) as unknown as DetectedBatch;
  const detector: Detector = {
    parallelism,
    detect(batchLines) {
      const lines = lineTexts(batchLines);
      calls.push(`detect ${lines.join(',')}`);
      if (!deferred) return Promise.resolve(batch(lines));
      return new Promise((resolve) => open.push(() => resolve(batch(lines))));
    },
    prepare() {
      calls.push('prepare');
      return Promise.resolve();
    },
    activate: () => void calls.push('activate'),
    discard: () => void calls.push('discard'),
    release: () => void calls.push('release'),
    close() {
      calls.push('close');
      return Promise.resolve();
    },
  };
  return { detector, calls, settleOne: () => open.shift()?.(), pending: () => open.length };
}

function controlled<T>() {
  let resolve: (v: T) => void = () => undefined;
  let reject: (e: Error) => void = () => undefined;
  const promise = new Promise<T>((ok, fail) => ((resolve = ok), (reject = fail)));
  return { promise, resolve, reject };
}

const flush = () => new Promise((r) => setImmediate(r));

describe('handoverDetector', () => {
  it('detects on the calling thread until the pool has started, then on the pool', async () => {
    const inline = fake('main', 1, false);
    const pool = fake('pool', 4, false);
    const starting = controlled<Detector>();
    const d = handoverDetector(inline.detector, () => starting.promise, { log });
    expect(d.parallelism).toBe(1);
    expect((await d.detect(['a'], 0)).texts).toEqual(['main:a']);
    starting.resolve(pool.detector);
    await flush();
    expect(d.parallelism).toBe(4);
    expect((await d.detect(['b'], 0)).texts).toEqual(['pool:b']);
    await d.close();
    // Once the pool serves, the calling thread lets go of its evaluators.
    expect(inline.calls).toEqual(['detect a', 'release', 'close']);
    expect(pool.calls).toEqual(['detect b', 'close']);
  });

  it('prepares a reload on the pool too, once it has started', async () => {
    const inline = fake('main', 1, false);
    const pool = fake('pool', 4, false);
    const starting = controlled<Detector>();
    const d = handoverDetector(inline.detector, () => starting.promise, { log });
    let prepared = false;
    const preparing = d.prepare(RULES, INPUTS).then(() => (prepared = true));
    await flush();
    expect(prepared).toBe(false);
    starting.resolve(pool.detector);
    await preparing;
    d.activate();
    // The reloaded rules are released too: the calling thread never evaluates them.
    expect(inline.calls).toEqual(['release', 'prepare', 'activate', 'release']);
    expect(pool.calls).toEqual(['prepare', 'activate']);
  });

  it('keeps detecting on the calling thread when the pool fails to start', async () => {
    const inline = fake('main', 1, false);
    const starting = controlled<Detector>();
    const d = handoverDetector(inline.detector, () => starting.promise, { log });
    starting.reject(new Error('worker died'));
    await d.prepare(RULES, INPUTS);
    expect((await d.detect(['a'], 0)).texts).toEqual(['main:a']);
    expect(d.parallelism).toBe(1);
    expect(inline.calls).not.toContain('release');
  });

  it('aborts a start still running when closed, and closes a pool that starts anyway', async () => {
    const inline = fake('main', 1, false);
    const pool = fake('pool', 4, false);
    const starting = controlled<Detector>();
    let signal: AbortSignal | undefined;
    const d = handoverDetector(inline.detector, (s) => ((signal = s), starting.promise), { log });
    expect(signal?.aborted).toBe(false);
    const closing = d.close();
    expect(signal?.aborted).toBe(true);
    starting.resolve(pool.detector);
    await closing;
    expect(pool.calls).toEqual(['close']);
  });

  it('with shareWhenBusy, sends a batch to the pool exactly when it has room, else evaluates it here', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 4 }), fc.array(fc.boolean(), { maxLength: 40 }), async (room, steps) => {
        const inline = fake('main', 1, false);
        const pool = fake('pool', room, true);
        const d = handoverDetector(inline.detector, () => Promise.resolve(pool.detector), { log, shareWhenBusy: true });
        await flush();
        expect(d.parallelism).toBe(room + 1);
        // The model: batches on the pool that have not settled.
        let onPool = 0;
        const batches: Promise<DetectedBatch>[] = [];
        for (const [i, detect] of steps.entries()) {
          if (detect) {
            const batch = d.detect([String(i)], 0);
            batches.push(batch);
            const expected = onPool < room ? 'pool' : 'main';
            if (expected === 'pool') onPool++;
            expect(expected === 'pool' ? pool.calls.at(-1) : inline.calls.at(-1)).toBe(`detect ${String(i)}`);
          } else if (pool.pending() > 0) {
            pool.settleOne();
            await flush();
            onPool--;
          }
        }
        while (pool.pending() > 0) pool.settleOne();
        for (const b of await Promise.all(batches)) expect(b.texts).toHaveLength(1);
        // The calling thread still evaluates: it keeps its evaluators.
        expect(inline.calls).not.toContain('release');
      }),
      { numRuns: 100 },
    );
  });
});
