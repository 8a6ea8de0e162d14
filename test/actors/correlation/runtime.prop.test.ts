import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CorrelationRuntime } from '../../../actors/correlation/index.js';
import { sizeOfEntries } from '../../../actors/correlation/index.js';
import type { CorrelationResult } from '../../../protocol/correlation-result.js';
import type { CompiledCorrelation } from '../../../sigma/correlation/index.js';
import { compareGroupIds } from '../../../sigma/correlation/index.js';
import type { RefFiring } from './reference-model.js';
import { RefCorrelation } from './reference-model.js';
import { arbScenario, BASE, buildScenario, eventOf, matchesOf, type Op, TYPES } from './scenario.js';

interface Model {
  readonly ref: RefCorrelation;
  seq: number;
}
interface Real {
  readonly rt: CorrelationRuntime;
}

function expected(def: CompiledCorrelation, f: RefFiring | undefined, host: string | null): unknown[] {
  if (f === undefined || !def.emits) return [];
  return [
    {
      group_key: host === null ? [] : [['host', host]],
      aggregated_value: f.value,
      ...(def.eventMode === 'refs' ? { event_refs: f.kept.map((k) => ({ timestamp: Math.floor((BASE + k.ts) / 1000), ...(k.id !== undefined ? { id: k.id } : {}) })) } : {}),
    },
  ];
}

function observed(results: readonly CorrelationResult[]): unknown[] {
  return results.map((r) => ({
    group_key: r.group_key,
    aggregated_value: r.aggregated_value,
    ...(r.event_refs !== undefined ? { event_refs: r.event_refs } : {}),
  }));
}

/** Hit values as the runtime stores them, so the reference sees the same input. */
function hitValue(def: CompiledCorrelation, v: string | number | null | undefined): string | number | null {
  if (def.aggregate === 'distinct') return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : null;
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return null;
}

function checkGroups(m: Model, r: Real): void {
  expect(r.rt.stateEntries).toBe(m.ref.groups.size);
  const snapshots = r.rt.groupSnapshots();
  const want = [...m.ref.groups.values()].map((g) => ({ key: g.key, entries: g.window().length, got: g.evaluate().value }));
  const have = r.rt.snapshot().map((g) => ({
    key: g.id,
    entries: sizeOfEntries(g.entries),
    got: snapshots.find((s) => s.group_key_display === `host=${g.id ?? '<none>'}`)?.got,
  }));
  const order = (a: { key: string | null }, b: { key: string | null }) => compareGroupIds(a.key, b.key);
  want.sort(order);
  have.sort(order);
  expect(have.map((h) => [h.key, h.entries])).toEqual(want.map((w) => [w.key, w.entries]));
  have.forEach((h, i) => {
    const w = want[i]?.got;
    if (w === undefined) expect(h.got).toBeUndefined();
    else expect(h.got).toBeCloseTo(w, 6);
  });
}

class HitCommand implements fc.Command<Model, Real> {
  constructor(
    readonly def: CompiledCorrelation,
    readonly op: Extract<Op, { kind: 'hit' }>,
  ) {}
  check(): boolean {
    return true;
  }
  run(m: Model, r: Real): void {
    const seq = m.seq++;
    const results = r.rt.onEvent(matchesOf(this.op.rules), eventOf(this.op, seq), 0);
    const firing = m.ref.hit(this.op.host, this.op.at, this.op.rules, hitValue(this.def, this.op.value), `e${seq}`);
    const want = expected(this.def, firing, this.op.host);
    const have = observed(results);
    expect(have.length).toBe(want.length);
    if (want.length === 1) {
      const [h, w] = [have[0] as { aggregated_value: number }, want[0] as { aggregated_value: number }];
      expect(h.aggregated_value).toBeCloseTo(w.aggregated_value, 6);
      expect({ ...h, aggregated_value: 0 }).toEqual({ ...w, aggregated_value: 0 });
    }
    checkGroups(m, r);
  }
  toString(): string {
    return `hit(${JSON.stringify(this.op)})`;
  }
}

class TickCommand implements fc.Command<Model, Real> {
  constructor(
    readonly def: CompiledCorrelation,
    readonly now: number,
  ) {}
  check(): boolean {
    return true;
  }
  run(m: Model, r: Real): void {
    r.rt.tick(BASE + this.now);
    m.ref.tick(this.now);
    checkGroups(m, r);
  }
  toString(): string {
    return `tick(${this.now})`;
  }
}

describe.each(TYPES)('%s runtime against the naive reference', (type) => {
  it('produces the same results and group state on random hit and tick sequences', () => {
    fc.assert(
      fc.property(arbScenario(type), (s) => {
        const { rt, def } = buildScenario(s, type);
        const cmds = s.steps.map((op) => (op.kind === 'hit' ? new HitCommand(def, op) : new TickCommand(def, op.now)));
        fc.modelRun(() => ({ model: { ref: new RefCorrelation(def, s.cap), seq: 0 }, real: { rt } }), cmds);
      }),
      { numRuns: 200 },
    );
  });
});

// The daemon ticks at the end of a batch, where its input happened to be cut: where ticks fall must not
// change what fires, even when events arrive out of order by more than a window. (Below the state cap:
// a tick that empties a group's window makes it staler, and the cap evicts the stalest first.)
describe.each(TYPES)('%s results wherever ticks fall', (type) => {
  it('are those of a run without ticks when ticks at the stream time follow any of the events', () => {
    fc.assert(
      fc.property(arbScenario(type), fc.array(fc.boolean(), { maxLength: 40 }), (scenario, tickAfter) => {
        const s = { ...scenario, cap: 1_000 };
        const hits = s.steps.filter((op) => op.kind === 'hit');
        const run = (ticks: boolean): CorrelationResult[] => {
          const { rt } = buildScenario(s, type);
          let time = -1;
          return hits.flatMap((op, i) => {
            const results = rt.onEvent(matchesOf(op.rules), eventOf(op, i), 0);
            time = Math.max(time, op.at);
            if (ticks && tickAfter[i] === true) rt.tick(BASE + time);
            return results;
          });
        };
        expect(run(true)).toEqual(run(false));
      }),
      { numRuns: 200 },
    );
  });
});
