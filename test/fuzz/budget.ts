// How long each fuzz property runs: a few seconds in `npm test`, longer under `npm run fuzz`
// (FUZZ_SECONDS per property). fast-check stops a property when its time is up without failing it.
import type fc from 'fast-check';

const seconds = Number(process.env['FUZZ_SECONDS'] ?? 1);

/** fast-check parameters for one property within the budget. */
export function fuzzParams(): fc.Parameters<unknown> {
  return { numRuns: 1_000_000, interruptAfterTimeLimit: seconds * 1000, markInterruptAsFailure: false };
}

/** The vitest timeout of a test holding `properties` fuzz properties (with room for a busy machine). */
export function fuzzTimeout(properties = 1): number {
  return properties * seconds * 1000 * 3 + 30_000;
}
