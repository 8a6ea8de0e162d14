import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createActor, type Actor } from 'xstate';
import { BACKOFF_BASE_MS, BACKOFF_MAX_MS, sourceRefreshMachine } from '../../../actors/source-refresh/index.js';
import type { RefreshPolicy } from '../../../actors/source-refresh/index.js';

/**
 * The reference: a source is resolved by one fetch at a time; a trigger during a fetch is remembered
 * once and runs after it; an interval source is due `every` after a success and, after failures, after
 * a window that doubles per failure (from max(every, 1 s), capped at max(5 min, every)) with the
 * jitter choosing where in its upper half. Time is a simulated clock sent as `tick` events.
 */
type Phase = 'idle' | 'running' | 'queued' | 'ready' | 'failed';
interface Model {
  readonly policy: RefreshPolicy;
  now: number;
  phase: Phase;
  /** When the next timed resolve is due; undefined when none. */
  due: number | undefined;
  failures: number;
  fetches: number;
}
type Real = Actor<typeof sourceRefreshMachine>;

const every = (m: Model): number | undefined => (m.policy.kind === 'interval' ? m.policy.everyMs : undefined);

function retryWindow(m: Model): number {
  const e = every(m) ?? 0;
  return Math.min(Math.max(BACKOFF_MAX_MS, e), Math.max(e, BACKOFF_BASE_MS) * 2 ** (m.failures - 1));
}

function startFetch(m: Model): void {
  m.phase = 'running';
  m.fetches++;
  m.due = undefined;
}

function agree(m: Model, r: Real): void {
  const snap = r.getSnapshot();
  const phase: Phase = snap.matches({ resolving: 'queued' }) ? 'queued' : snap.matches('resolving') ? 'running' : (snap.value as Phase);
  expect(phase).toBe(m.phase);
  expect(snap.context.started).toBe(m.fetches);
  expect(snap.context.failures).toBe(m.failures);
  expect(snap.context.deadline).toBe(m.due ?? -1);
}

class Trigger implements fc.Command<Model, Real> {
  check = () => true;
  run(m: Model, r: Real): void {
    if (m.phase === 'running') m.phase = 'queued';
    else if (m.phase !== 'queued') startFetch(m);
    r.send({ type: 'trigger', at: m.now });
    agree(m, r);
  }
  toString = () => 'trigger';
}

class Advance implements fc.Command<Model, Real> {
  constructor(readonly ms: number) {}
  check = () => true;
  run(m: Model, r: Real): void {
    m.now += this.ms;
    if ((m.phase === 'ready' || m.phase === 'failed') && m.due !== undefined && m.now >= m.due) startFetch(m);
    r.send({ type: 'tick', now: m.now });
    agree(m, r);
  }
  toString = () => `advance(${this.ms})`;
}

class Succeed implements fc.Command<Model, Real> {
  check = (m: Readonly<Model>) => m.phase === 'running' || m.phase === 'queued';
  run(m: Model, r: Real): void {
    m.failures = 0;
    if (m.phase === 'queued') startFetch(m);
    else {
      m.phase = 'ready';
      const e = every(m);
      m.due = e === undefined ? undefined : m.now + e;
    }
    r.send({ type: 'resolved', at: m.now });
    agree(m, r);
  }
  toString = () => 'succeed';
}

class Fail implements fc.Command<Model, Real> {
  constructor(readonly jitter: number) {}
  check = (m: Readonly<Model>) => m.phase === 'running' || m.phase === 'queued';
  run(m: Model, r: Real): void {
    m.failures++;
    if (m.phase === 'queued') startFetch(m);
    else {
      m.phase = 'failed';
      m.due = undefined;
    }
    r.send({ type: 'resolve_failed', at: m.now, jitter: this.jitter });
    if (m.phase === 'failed' && every(m) !== undefined) {
      // The retry lands in the upper half of the doubled window.
      const w = retryWindow(m);
      const due = r.getSnapshot().context.deadline;
      expect(due - m.now).toBeGreaterThanOrEqual(Math.floor(w / 2));
      expect(due - m.now).toBeLessThanOrEqual(w);
      m.due = due;
    }
    agree(m, r);
  }
  toString = () => `fail(${this.jitter})`;
}

class Push implements fc.Command<Model, Real> {
  check = () => true;
  run(m: Model, r: Real): void {
    if (m.phase === 'idle') m.phase = 'ready';
    else if (m.phase === 'ready' || m.phase === 'failed') {
      m.phase = 'ready';
      m.failures = 0;
      const e = every(m);
      m.due = e === undefined ? undefined : m.now + e;
    }
    r.send({ type: 'pushed', at: m.now });
    agree(m, r);
  }
  toString = () => 'push';
}

const policies: fc.Arbitrary<RefreshPolicy> = fc.oneof(
  fc.constantFrom<RefreshPolicy>({ kind: 'once' }, { kind: 'watch' }, { kind: 'push' }, { kind: 'on_demand' }),
  fc.integer({ min: 1_000, max: 600_000 }).map((everyMs): RefreshPolicy => ({ kind: 'interval', everyMs })),
);

const commands = fc.commands(
  [
    fc.constant(new Trigger()),
    fc.integer({ min: 0, max: 700_000 }).map((ms) => new Advance(ms)),
    fc.constant(new Succeed()),
    fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }).map((j) => new Fail(j)),
    fc.constant(new Push()),
  ],
  { maxCommands: 60 },
);

describe('source refresh machine', () => {
  it('agrees with the reference model under any interleaving of triggers, time, results and pushes', () => {
    fc.assert(
      fc.property(policies, commands, (policy, cmds) => {
        const real = createActor(sourceRefreshMachine, { input: { policy } }).start();
        const model: Model = { policy, now: 0, phase: 'idle', due: undefined, failures: 0, fetches: 0 };
        fc.modelRun(() => ({ model, real }), cmds);
        real.stop();
      }),
      { numRuns: 300 },
    );
  });

  it('backs a failing interval source off beyond its interval instead of retrying at it', () => {
    const real = createActor(sourceRefreshMachine, { input: { policy: { kind: 'interval', everyMs: 1_000 } } }).start();
    const gaps: number[] = [];
    let now = 0;
    real.send({ type: 'trigger', at: now });
    for (let i = 0; i < 8; i++) {
      real.send({ type: 'resolve_failed', at: now, jitter: 0.5 });
      const due = real.getSnapshot().context.deadline;
      gaps.push(due - now);
      now = due;
      real.send({ type: 'tick', now });
    }
    expect(gaps).toEqual([750, 1500, 3000, 6000, 12000, 24000, 48000, 96000]);
  });
});
