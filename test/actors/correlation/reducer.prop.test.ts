import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeGroup, expiresBy, transition } from '../../../actors/correlation/index.js';
import { arbScenario, BASE, buildScenario, eventOf, matchesOf, TYPES } from './scenario.js';

describe('group reducer', () => {
  it('predicts expiry exactly as a tick decides it', () => {
    const arb = fc.constantFrom(...TYPES).chain((type) => fc.tuple(fc.constant(type), arbScenario(type), fc.nat(80_000)));
    fc.assert(
      fc.property(arb, ([type, s, later]) => {
        const { rt } = buildScenario({ ...s, cap: 1_000 }, type);
        s.steps.forEach((op, i) => op.kind === 'hit' && rt.onEvent(matchesOf(op.rules), eventOf(op, i), 0));
        for (const g of rt.snapshot()) {
          const now = BASE + 60_000 + later;
          expect(expiresBy(g, now)).toBe(transition(g, { kind: 'tick', now }).state.phase === 'expired');
        }
      }),
      { numRuns: 300 },
    );
  });

  // Groups share an append-only entry log with their successors, so the check reads each state's own
  // view of it (its encoding) rather than the shared storage.
  it('leaves the state it was given untouched', () => {
    fc.assert(
      fc.property(fc.constantFrom(...TYPES).chain((type) => fc.tuple(fc.constant(type), arbScenario(type))), ([type, s]) => {
        const { rt } = buildScenario({ ...s, cap: 1_000 }, type);
        s.steps.forEach((op, i) => {
          const before = JSON.stringify(rt.snapshot().map(encodeGroup));
          const groups = rt.snapshot();
          if (op.kind === 'hit') rt.onEvent(matchesOf(op.rules), eventOf(op, i), 0);
          else rt.tick(BASE + op.now);
          expect(JSON.stringify(groups.map(encodeGroup))).toBe(before);
        });
      }),
      { numRuns: 100 },
    );
  });
});
