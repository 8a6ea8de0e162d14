import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createActor, type Actor } from 'xstate';
import { readinessMachine } from '../../../actors/readiness/index.js';
import type { ReadinessEvent, ReadinessState } from '../../../actors/readiness/index.js';

/** The reference: two flags and a verdict, written the obvious way. */
interface Model {
  loaded: boolean;
  recovered: boolean;
  state: ReadinessState;
  now: number;
}
type Real = Actor<typeof readinessMachine>;

function step(m: Model, e: ReadinessEvent): void {
  if (m.state === 'failed') return;
  if (m.state === 'starting') {
    if (e.type === 'rules_loaded') m.loaded = true;
    if (e.type === 'state_recovered') m.recovered = true;
    if (e.type === 'load_failed') m.state = 'failed';
    else if (m.loaded && m.recovered) m.state = 'ready';
    return;
  }
  if (e.type === 'reload_failed') m.state = 'not_ready';
  if (e.type === 'reload_succeeded') m.state = 'ready';
}

class Send implements fc.Command<Model, Real> {
  constructor(
    readonly type: ReadinessEvent['type'],
    readonly delta: number,
  ) {}
  check(): boolean {
    return true;
  }
  run(m: Model, r: Real): void {
    m.now += this.delta;
    const e: ReadinessEvent =
      this.type === 'load_failed' || this.type === 'reload_failed'
        ? { type: this.type, at: m.now, error: 'boom' }
        : { type: this.type, at: m.now };
    step(m, e);
    r.send(e);
    const snap = r.getSnapshot();
    expect(snap.value).toBe(m.state);
    expect(snap.matches('ready')).toBe(m.state === 'ready');
    if (m.state === 'not_ready') expect(snap.context.lastError).toBe('boom');
    if (m.state === 'ready') expect(snap.context.lastError).toBeUndefined();
  }
  toString(): string {
    return `${this.type}(+${this.delta})`;
  }
}

const TYPES = ['rules_loaded', 'state_recovered', 'load_failed', 'reload_succeeded', 'reload_failed'] as const;

describe('readiness machine', () => {
  it('agrees with the two-flag reference model under any event sequence', () => {
    const commands = fc.commands([fc.tuple(fc.constantFrom(...TYPES), fc.nat(1000)).map(([t, d]) => new Send(t, d))], { maxCommands: 40 });
    fc.assert(
      fc.property(commands, (cmds) => {
        fc.modelRun(
          () => ({ model: { loaded: false, recovered: false, state: 'starting' as ReadinessState, now: 0 }, real: createActor(readinessMachine, { input: { at: 0 } }).start() }),
          cmds,
        );
      }),
      { numRuns: 300 },
    );
  });

  it('is ready only after both the rules and the state are in', () => {
    const a = createActor(readinessMachine, { input: { at: 0 } }).start();
    a.send({ type: 'state_recovered', at: 1 });
    expect(a.getSnapshot().value).toBe('starting');
    a.send({ type: 'rules_loaded', at: 2 });
    expect(a.getSnapshot().value).toBe('ready');
    expect(a.getSnapshot().context.since).toBe(2);
  });

  it('goes not ready on a failed reload and back on the next success', () => {
    const a = createActor(readinessMachine, { input: { at: 0 } }).start();
    a.send({ type: 'rules_loaded', at: 1 });
    a.send({ type: 'state_recovered', at: 1 });
    a.send({ type: 'reload_failed', at: 5, error: 'pipeline broken' });
    expect(a.getSnapshot().value).toBe('not_ready');
    expect(a.getSnapshot().context.lastError).toBe('pipeline broken');
    a.send({ type: 'reload_succeeded', at: 9 });
    expect(a.getSnapshot().value).toBe('ready');
  });
});
