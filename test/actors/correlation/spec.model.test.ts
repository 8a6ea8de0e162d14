import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createActor, type Actor } from 'xstate';
import type { GroupState } from '../../../actors/correlation/index.js';
import { groupLifecycle, initial, markOf, transition } from '../../../actors/correlation/index.js';
import type { CompiledCorrelation } from '../../../sigma/correlation/index.js';
import { RefGroup } from './reference-model.js';
import { arbScenario, buildScenario, TYPES } from './scenario.js';

interface Model {
  readonly ref: RefGroup;
  readonly def: CompiledCorrelation;
  cursor: number;
  seq: number;
  final: boolean;
}
interface Real {
  state: GroupState;
  readonly spec: Actor<typeof groupLifecycle>;
}

function agree(m: Model, r: Real): void {
  const snap = r.spec.getSnapshot();
  expect(r.state.phase).toBe(snap.value);
  if (!m.final) {
    expect(r.state.lastAlert).toBe(snap.context.lastAlert);
    expect(markOf(r.state)).toBe(snap.context.mark);
  }
}

class Hit implements fc.Command<Model, Real> {
  constructor(
    readonly delta: number,
    readonly rules: number,
    readonly value: number,
  ) {}
  check(m: Readonly<Model>): boolean {
    return !m.final;
  }
  run(m: Model, r: Real): void {
    const at = Math.max(0, m.cursor + this.delta);
    m.cursor = Math.max(m.cursor, at);
    const value = m.def.aggregate === 'distinct' ? `v${this.value % 3}` : this.value;
    const outcome = m.ref.hit(m.seq++, at, this.rules, value, undefined);
    r.state = transition(r.state, { kind: 'hit', at, rules: this.rules, value }).state;
    r.spec.send({ type: 'hit', at, late: outcome.late, met: outcome.met });
    agree(m, r);
  }
  toString(): string {
    return `hit(${this.delta}, ${this.rules}, ${this.value})`;
  }
}

class Tick implements fc.Command<Model, Real> {
  constructor(readonly delta: number) {}
  check(m: Readonly<Model>): boolean {
    return !m.final;
  }
  run(m: Model, r: Real): void {
    const now = m.cursor + this.delta;
    m.ref.tick(now);
    r.state = transition(r.state, { kind: 'tick', now }).state;
    r.spec.send({ type: 'tick', now, empty: m.ref.window().length === 0 });
    m.final = r.spec.getSnapshot().status === 'done';
    agree(m, r);
  }
  toString(): string {
    return `tick(+${this.delta})`;
  }
}

class Evict implements fc.Command<Model, Real> {
  check(m: Readonly<Model>): boolean {
    return !m.final;
  }
  run(m: Model, r: Real): void {
    r.state = transition(r.state, { kind: 'evicted' }).state;
    r.spec.send({ type: 'evicted' });
    m.final = true;
    agree(m, r);
    // A final group ignores anything further.
    expect(transition(r.state, { kind: 'hit', at: m.cursor, rules: 1 }).reason).toBe('final');
  }
  toString(): string {
    return 'evict';
  }
}

const commands = [
  fc.tuple(fc.integer({ min: -24, max: 18 }), fc.integer({ min: 1, max: 7 }), fc.integer({ min: -5, max: 30 })).map(
    ([d, rules, v]) => new Hit(d * 500, rules, v),
  ),
  fc.integer({ min: 0, max: 40 }).map((d) => new Tick(d * 500)),
  fc.constant(new Evict()),
];

describe('group reducer against its lifecycle statechart', () => {
  it('moves through idle, accumulating, fired, suppressed, expired and evicted exactly as the chart says', () => {
    const arb = fc.constantFrom(...TYPES).chain((type) => fc.tuple(fc.constant(type), arbScenario(type)));
    fc.assert(
      fc.property(arb, fc.commands(commands, { maxCommands: 40 }), ([type, s], cmds) => {
        const { def } = buildScenario({ ...s, steps: [] }, type);
        const spec = createActor(groupLifecycle, { input: { suppressMs: def.suppressMs } }).start();
        const real: Real = { state: initial(def, 'a'), spec };
        fc.modelRun(() => ({ model: { ref: new RefGroup(def, 'a'), def, cursor: 60_000, seq: 0, final: false }, real }), cmds);
        spec.stop();
      }),
      { numRuns: 300 },
    );
  });
});
