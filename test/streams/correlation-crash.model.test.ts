// Issue 6, the fast-check crash/replay property on the daemon's own path (batch processor, correlation
// runtime, the registered `corr`/`corr-tick` kinds through `recover` and `snapshotKinds`), not a toy
// kind: random sends and snapshots, with a crash armed at a random named point. The crashing run
// restarts on its state (recovery from snapshot + journal) and re-sends what was not acknowledged,
// deciding by its Idempotency-Key as the HTTP source does. After every command its live groups equal
// an uninterrupted run's; at the end so do its outbox (every result once, same ids and lines) and a
// final recovery.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryBackend } from '../../state/index.js';
import type { CrashPoint } from '../../state/index.js';
import { CRASH_RULES, crashLaneEvent, crashLaneLines, inline, openHarness, ruleSetFrom } from './pipeline-harness.js';
import type { Harness } from './pipeline-harness.js';

const RULES = ruleSetFrom(CRASH_RULES);

class Crash extends Error {}

/** One run: its backend survives restarts, its harness does not. */
class Run {
  private sent = 0;
  private armed: CrashPoint | undefined;
  private harness: Harness | undefined;
  crashes = 0;

  private constructor(readonly backend: MemoryBackend) {}

  static async start(): Promise<Run> {
    const run = new Run(new MemoryBackend());
    run.harness = await run.open();
    return run;
  }

  get h(): Harness {
    if (this.harness === undefined) throw new Error('run not started');
    return this.harness;
  }

  /** The next time the run passes `point`, it dies there. */
  arm(point: CrashPoint): void {
    this.armed = point;
  }

  /** Sends one request until it is acknowledged, restarting after each crash. */
  async send(lines: readonly string[]): Promise<void> {
    const key = `req-${this.sent++}`;
    for (;;) {
      // What the HTTP source answers a resent key with: the stored answer, nothing applied again.
      if (this.h.store.lookupIdempotency(key, this.h.ctx.clock.now())?.status === 'committed') return;
      const outcome = await this.survive(() => this.h.send(lines, key));
      if (outcome !== undefined) {
        expect(outcome).toMatchObject({ ok: true, accepted: lines.length });
        return;
      }
    }
  }

  async snapshot(): Promise<void> {
    await this.survive(() => this.h.snapshot());
  }

  /** Runs `step`; a crash inside it abandons the harness and recovers a new one. */
  private async survive<T>(step: () => Promise<T>): Promise<T | undefined> {
    let crashed = false;
    let result: T | undefined;
    try {
      result = await step();
    } catch (error) {
      if (!(error instanceof Crash)) throw error;
      crashed = true;
    }
    // The processor settles a unit with the failure instead of throwing it.
    if (crashed || (result as { ok?: boolean } | undefined)?.ok === false) {
      this.crashes++;
      this.harness = await this.open();
      return undefined;
    }
    return result;
  }

  private open(): Promise<Harness> {
    return openHarness(RULES, this.backend, inline(RULES), undefined, (point) => {
      if (point !== this.armed) return;
      this.armed = undefined;
      throw new Crash(`crash at ${point}`);
    });
  }

  outbox(): [string, unknown][] {
    return this.h.store.readOutbox('s', Number.MAX_SAFE_INTEGER).map((e) => [e.result_id, e.payload]);
  }
}

interface Runs {
  readonly reference: Run;
  readonly crashing: Run;
}

type Cmd = fc.AsyncCommand<object, Runs>;

function liveState(h: Harness): unknown {
  return { groups: h.active().runtime.groupSnapshots(), tickedAt: h.journal.tickedAt };
}

const command = (label: string, step: (r: Run, isReference: boolean) => Promise<void>): Cmd => ({
  check: () => true,
  async run(_m, r) {
    await step(r.reference, true);
    await step(r.crashing, false);
    expect(liveState(r.crashing.h)).toEqual(liveState(r.reference.h));
  },
  toString: () => label,
});

const arbEvent = crashLaneEvent(50);

function commandsArb(): fc.Arbitrary<Cmd[]> {
  const clock = { s: 0 };
  const send = fc.array(arbEvent, { minLength: 1, maxLength: 6 }).map((events) => {
    // Lines are fixed when the command is built, so both runs (and a re-send) see the same ones.
    let lines: string[] | undefined;
    return command(`send(${events.length})`, (r) => r.send((lines ??= crashLaneLines(events, clock))));
  });
  return fc.commands(
    [
      send,
      fc.constant(command('snapshot', (r) => r.snapshot())),
      fc
        .constantFrom<CrashPoint>('after-eval', 'after-commit', 'mid-snapshot')
        .map((p) => command(`crash(${p})`, async (r, isReference) => (isReference ? undefined : r.arm(p)))),
    ],
    { maxCommands: 30 },
  ).map((cmds) => [...cmds]);
}

describe('correlation state: crash at a random point, then recovery', () => {
  it('ends with the groups, tick frontier and outbox of an uninterrupted run', async () => {
    let crashes = 0;
    await fc.assert(
      fc.asyncProperty(commandsArb(), async (cmds) => {
        const runs: Runs = { reference: await Run.start(), crashing: await Run.start() };
        await fc.asyncModelRun(() => ({ model: {}, real: runs }), cmds);
        const ids = runs.crashing.outbox().map(([id]) => id);
        expect(new Set(ids).size).toBe(ids.length);
        expect(runs.crashing.outbox()).toEqual(runs.reference.outbox());
        // A last restart of each recovers the same state again.
        const [a, b] = [await openHarness(RULES, runs.reference.backend), await openHarness(RULES, runs.crashing.backend)];
        expect(liveState(b)).toEqual(liveState(a));
        crashes += runs.crashing.crashes;
      }),
      { numRuns: 120 },
    );
    // The property must actually have exercised crashes.
    expect(crashes).toBeGreaterThan(20);
  }, 60_000);
});
