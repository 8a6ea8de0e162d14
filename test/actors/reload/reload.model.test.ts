import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createActor, type Actor } from 'xstate';
import { RELOAD_DEBOUNCE_MS, reloadMachine } from '../../../actors/reload/index.js';

/**
 * The reference: "wait for a trigger, sleep 500 ms, drain, run once, repeat" (daemon-semantics
 * §15.2) as three variables over a simulated clock.
 */
interface Model {
  now: number;
  /** When the debounce ends; undefined when none is armed. */
  due: number | undefined;
  running: boolean;
  pending: boolean;
  runs: number;
}
type Real = Actor<typeof reloadMachine>;

function expected(m: Model): string {
  return m.running ? 'running' : m.due !== undefined ? 'debouncing' : 'idle';
}

function agree(m: Model, r: Real): void {
  const snap = r.getSnapshot();
  expect(snap.value).toBe(expected(m));
  expect(snap.context.started).toBe(m.runs);
  if (m.due !== undefined && !m.running) expect(snap.context.deadline).toBe(m.due);
}

class Trigger implements fc.Command<Model, Real> {
  check(): boolean {
    return true;
  }
  run(m: Model, r: Real): void {
    if (m.running) m.pending = true;
    else m.due ??= m.now + RELOAD_DEBOUNCE_MS;
    r.send({ type: 'trigger', at: m.now, source: 'api' });
    agree(m, r);
  }
  toString(): string {
    return 'trigger';
  }
}

class Advance implements fc.Command<Model, Real> {
  constructor(readonly ms: number) {}
  check(): boolean {
    return true;
  }
  run(m: Model, r: Real): void {
    m.now += this.ms;
    if (!m.running && m.due !== undefined && m.now >= m.due) {
      m.due = undefined;
      m.running = true;
      m.runs++;
    }
    r.send({ type: 'tick', now: m.now });
    agree(m, r);
  }
  toString(): string {
    return `advance(${this.ms})`;
  }
}

class Finish implements fc.Command<Model, Real> {
  constructor(readonly ok: boolean) {}
  check(m: Readonly<Model>): boolean {
    return m.running;
  }
  run(m: Model, r: Real): void {
    m.running = false;
    if (m.pending) m.due = m.now + RELOAD_DEBOUNCE_MS;
    m.pending = false;
    r.send({ type: 'finished', at: m.now, ok: this.ok });
    agree(m, r);
  }
  toString(): string {
    return `finish(${this.ok})`;
  }
}

describe('reload machine', () => {
  it('debounces, coalesces and runs like the reference under a simulated clock', () => {
    const commands = fc.commands(
      [fc.constant(new Trigger()), fc.integer({ min: 0, max: 800 }).map((ms) => new Advance(ms)), fc.boolean().map((ok) => new Finish(ok))],
      { maxCommands: 60 },
    );
    fc.assert(
      fc.property(commands, (cmds) => {
        fc.modelRun(() => ({ model: { now: 0, due: undefined, running: false, pending: false, runs: 0 }, real: createActor(reloadMachine).start() }), cmds);
      }),
      { numRuns: 300 },
    );
  });

  it('coalesces a burst of triggers into one run 500 ms after the first', () => {
    const a = createActor(reloadMachine).start();
    for (const at of [0, 100, 200, 499]) a.send({ type: 'trigger', at, source: 'file' });
    a.send({ type: 'tick', now: 499 });
    expect(a.getSnapshot().value).toBe('debouncing');
    a.send({ type: 'tick', now: 500 });
    expect(a.getSnapshot().value).toBe('running');
    expect(a.getSnapshot().context.started).toBe(1);
  });

  it('runs again after a trigger that arrived while a reload was running', () => {
    const a = createActor(reloadMachine).start();
    a.send({ type: 'trigger', at: 0, source: 'signal' });
    a.send({ type: 'tick', now: 500 });
    a.send({ type: 'trigger', at: 600, source: 'api' });
    a.send({ type: 'finished', at: 700, ok: false });
    expect(a.getSnapshot().value).toBe('debouncing');
    expect(a.getSnapshot().context.deadline).toBe(1200);
  });
});
