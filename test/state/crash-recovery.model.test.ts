import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CrashPoint } from '../../state/index.js';
import { CrashDriver, encodedStates, recoverInto } from './support/crash-driver.js';
import type { Input } from './support/crash-driver.js';
import { STORE_FLAVOURS } from './support/store-harness.js';
import { useTempDirs } from './support/temp-dirs.js';

interface Runs {
  readonly reference: CrashDriver;
  readonly crashing: CrashDriver;
  readonly referenceFile: string;
  readonly crashingFile: string;
}

const lines = (path: string): string[] => {
  try {
    return readFileSync(path, 'utf8').split('\n').filter((l) => l !== '');
  } catch {
    return [];
  }
};

function expectSameOutcome(r: Runs): void {
  expect(r.crashing.encodedStates()).toEqual(r.reference.encodedStates());
  expect(r.crashing.inputOrdinal).toBe(r.reference.inputOrdinal);
  expect(lines(r.crashingFile)).toEqual(lines(r.referenceFile));
}

type Cmd = fc.AsyncCommand<object, Runs>;

const command = (label: string, step: (d: CrashDriver, isReference: boolean) => Promise<void>): Cmd => ({
  check: () => true,
  async run(_m, r) {
    await step(r.reference, true);
    await step(r.crashing, false);
    expectSameOutcome(r);
  },
  toString: () => label,
});

const crashCommand = (p: CrashPoint): Cmd => command(`crash(${p})`, async (d, isReference) => (isReference ? undefined : d.arm(p)));

const commandArb: fc.Arbitrary<Cmd> = fc.oneof(
  { weight: 5, arbitrary: fc.integer({ min: 1, max: 6 }).map((n) => command(`batch(${n})`, (d) => d.batch(n))) },
  { weight: 2, arbitrary: fc.integer({ min: 1, max: 5 }).map((n) => command(`deliver(${n})`, (d) => d.deliver(n))) },
  { weight: 1, arbitrary: fc.nat({ max: 10_000 }).map((t) => command(`snapshot(${t})`, (d) => d.snapshot(t))) },
  { weight: 1, arbitrary: fc.nat({ max: 10_000 }).map((t) => command(`restart(${t})`, (d) => d.restart(t))) },
  {
    weight: 3,
    arbitrary: fc
      .constantFrom<CrashPoint>('after-eval', 'after-commit', 'after-sink-write', 'mid-snapshot')
      .map(crashCommand),
  },
);

// One run that surely crashes and fires, so the coverage checks below never depend on the draw.
const firingHits: Input[] = [1, 2, 3].map((at) => ({ t: 'hit', rule: 'r0', host: 'h1', user: 'u1', at }));

// Event times in seconds (the rules' windows are 60 s), so hits share windows, fire, and expire on ticks.
const inputArb: fc.Arbitrary<Input> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      t: fc.constant('hit' as const),
      rule: fc.constantFrom('r0' as const, 'r1' as const),
      host: fc.constantFrom('h1', 'h2', 'h3'),
      user: fc.constantFrom('u1', 'u2', 'u3'),
      at: fc.nat({ max: 400 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('tick' as const), now: fc.nat({ max: 500 }) }) },
);

describe.each(STORE_FLAVOURS)('%s: crash at a random point, then recovery', (name, harness) => {
  const tempDir = useTempDirs();

  it('ends in the state, input position and delivered lines of an uninterrupted run', async () => {
    let crashes = 0;
    let delivered = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(inputArb, { minLength: 1, maxLength: 60 }), fc.commands([commandArb], { maxCommands: name === 'lmdb' ? 18 : 30 }), async (inputs, cmds) => {
        const dir = tempDir();
        const referenceFile = join(dir, 'reference.ndjson');
        const crashingFile = join(dir, 'crashing.ndjson');
        const runs: Runs = {
          reference: await CrashDriver.start(harness(join(dir, 'reference')), inputs, referenceFile),
          crashing: await CrashDriver.start(harness(join(dir, 'crashing')), inputs, crashingFile),
          referenceFile,
          crashingFile,
        };
        try {
          await fc.asyncModelRun(() => ({ model: {}, real: runs }), cmds);
          await runs.reference.batch(inputs.length);
          await runs.crashing.batch(inputs.length);
          await runs.reference.drain();
          await runs.crashing.drain();
          expectSameOutcome(runs);
          crashes += runs.crashing.crashes;
          delivered += lines(referenceFile).length;
        } finally {
          await runs.reference.close();
          await runs.crashing.close();
        }
      }),
      { numRuns: name === 'lmdb' ? 25 : 80, examples: [[firingHits, [crashCommand('after-commit')]]] },
    );
    // The property must actually have exercised crashes, and correlations that fire.
    expect(crashes).toBeGreaterThan(0);
    expect(delivered).toBeGreaterThan(0);
  });

  it('snapshot plus journal tail restores exactly the live state', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(inputArb, { minLength: 1, maxLength: 60 }), fc.array(fc.integer({ min: 1, max: 8 }), { minLength: 1, maxLength: 8 }), fc.nat({ max: 8 }), async (inputs, batches, snapshotAfter) => {
        const dir = tempDir();
        const reopen = harness(join(dir, 'db'));
        const driver = await CrashDriver.start(reopen, inputs, join(dir, 'out.ndjson'));
        for (let i = 0; i < batches.length; i++) {
          await driver.batch(batches[i] ?? 1);
          if (i === snapshotAfter) await driver.snapshot(i);
        }
        const live = driver.encodedStates();
        await driver.close();
        const store = await reopen();
        const { registry } = await recoverInto(store);
        expect(encodedStates(registry)).toEqual(live);
        await store.close();
      }),
      { numRuns: name === 'lmdb' ? 20 : 60 },
    );
  });
});
