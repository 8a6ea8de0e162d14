import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RateLimiter } from '../../streams/index.js';
import { flush, SimulatedClock } from './support.js';

/** Runs sequential takes, each after `gap` ms; returns when each was asked and granted, and whether it said it waited. */
async function schedule(requests: number, perMs: number, gaps: readonly number[]): Promise<{ asked: number; granted: number; waited: boolean }[]> {
  const clock = new SimulatedClock(0);
  const limiter = new RateLimiter(requests, perMs, clock);
  const out: { asked: number; granted: number; waited: boolean }[] = [];
  for (const gap of gaps) {
    await clock.advance(gap);
    const asked = clock.now();
    let result: boolean | undefined;
    void limiter.take().then((w) => (result = w));
    await flush();
    while (result === undefined) await clock.advance(1);
    out.push({ asked, granted: clock.now(), waited: result });
  }
  return out;
}

describe('webhook rate limiter', () => {
  it('starts full, never grants faster than requests/per, and says when it waited', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 10, max: 200 }), fc.array(fc.integer({ min: 0, max: 120 }), { minLength: 1, maxLength: 25 }), async (requests, perMs, gaps) => {
        const got = await schedule(requests, perMs, [0, ...gaps.slice(1)]);
        for (const g of got) expect(g.waited).toBe(g.granted > g.asked);
        // A full bucket serves its first `requests` back-to-back takes at once.
        const burst = got.slice(0, requests);
        if (gaps.slice(1, requests).every((g) => g === 0)) for (const g of burst) expect(g.waited).toBe(false);
        for (let i = 0; i < got.length; i++) {
          for (let j = i; j < got.length; j++) {
            const span = (got[j]?.granted ?? 0) - (got[i]?.granted ?? 0);
            // Grants in any span: the bucket's content plus what refilled (+1 for the ms rounding of a wait).
            expect(j - i + 1).toBeLessThanOrEqual(requests + (span * requests) / perMs + 1);
          }
        }
      }),
      { numRuns: 60 },
    );
  });
});
