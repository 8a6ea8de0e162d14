import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CorrelationEvent, CorrelationRuntime } from '../../../actors/correlation/index.js';
import { decode, encode, parseActorKey } from '../../../actors/correlation/index.js';
import type { CorrelationType } from '../../../sigma/ast.js';
import type { Op, Scenario } from './scenario.js';
import { arbScenario, BASE, buildScenario, eventOf, matchesOf, TYPES } from './scenario.js';

function step(rt: CorrelationRuntime, op: Op, seq: number): string {
  if (op.kind === 'tick') {
    rt.tick(BASE + op.now);
    return '';
  }
  return JSON.stringify(rt.onEvent(matchesOf(op.rules), eventOf(op, seq), 0));
}

/** The snapshot as it would come back from storage: plain data, no shared references. */
function stored(rt: CorrelationRuntime): unknown {
  return JSON.parse(JSON.stringify(encode(rt.snapshot())));
}

function arbSplit(type: CorrelationType): fc.Arbitrary<[Scenario, number]> {
  return arbScenario(type).chain((s) => fc.tuple(fc.constant(s), fc.integer({ min: 0, max: s.steps.length })));
}

describe.each(TYPES)('%s state survives a snapshot', (type) => {
  it('continues after encode, store, decode into freshly compiled rules exactly like an uninterrupted run', () => {
    fc.assert(
      fc.property(arbSplit(type), ([s, k]) => {
        const whole = buildScenario(s, type).rt;
        const expected = s.steps.map((op, i) => step(whole, op, i));

        const first = buildScenario(s, type).rt;
        const before = s.steps.slice(0, k).map((op, i) => step(first, op, i));
        const second = buildScenario(s, type).rt;
        const decoded = decode(stored(first), (h) => second.definitionByHash(h));
        expect(decoded.skipped).toBe(0);
        second.restore(decoded.groups);
        // The stream's time is kept beside the groups (the daemon's corr-tick snapshot entry).
        second.advanceTo(first.streamTime);
        const after = s.steps.slice(k).map((op, i) => step(second, op, k + i));

        expect([...before, ...after]).toEqual(expected);
        expect(JSON.stringify(stored(second))).toBe(JSON.stringify(stored(whole)));
      }),
      { numRuns: 60 },
    );
  });

  it('reaches the same state by restoring a snapshot and replaying the journal tail', () => {
    fc.assert(
      fc.property(arbSplit(type), ([s, k]) => {
        const journal: [string, CorrelationEvent][] = [];
        const recording = buildScenario(s, type, {
          record: (key, e) => journal.push([key, JSON.parse(JSON.stringify(e)) as CorrelationEvent]),
        }).rt;
        let snapshot: unknown = stored(recording);
        let mark = 0;
        s.steps.forEach((op, i) => {
          if (i === k) {
            snapshot = stored(recording);
            mark = journal.length;
          }
          step(recording, op, i);
        });
        if (k === s.steps.length) {
          snapshot = stored(recording);
          mark = journal.length;
        }
        const { rt: replayed, def } = buildScenario(s, type);
        replayed.restore(decode(snapshot, (h) => replayed.definitionByHash(h)).groups);
        for (const [key, e] of journal.slice(mark)) {
          const parsed = parseActorKey([def], key);
          expect(parsed).toBeDefined();
          if (parsed !== undefined) expect(replayed.replay(parsed.def, parsed.parts, e)).toBe(true);
        }
        expect(JSON.stringify(stored(replayed))).toBe(JSON.stringify(stored(recording)));
        expect(replayed.stateEntries).toBe(recording.stateEntries);
      }),
      { numRuns: 60 },
    );
  });
});
