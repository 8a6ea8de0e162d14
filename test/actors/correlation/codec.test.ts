import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { GroupState } from '../../../actors/correlation/index.js';
import { CORRELATION_CODEC_VERSION, decode, encode, encodeGroup, evaluateGroup } from '../../../actors/correlation/index.js';
import { compareGroupIds } from '../../../sigma/correlation/index.js';
import { arbScenario, BASE, buildScenario, eventOf, matchesOf } from './scenario.js';

function groupsAfter(s: Parameters<typeof buildScenario>[0]) {
  const { rt } = buildScenario(s, 'temporal_ordered');
  s.steps.forEach((op, i) => (op.kind === 'tick' ? rt.tick(BASE + op.now) : rt.onEvent(matchesOf(op.rules), eventOf(op, i), 0)));
  return { rt, groups: rt.snapshot() };
}

// A group as it is observed: its encoding and its current aggregate (the entry storage is shared).
const plain = (g: readonly GroupState[]) => g.map((x) => ({ ...encodeGroup(x), evaluation: evaluateGroup(x) }));

describe('correlation snapshot codec', () => {
  it('decodes what it encodes', () => {
    fc.assert(
      fc.property(arbScenario('temporal_ordered'), (s) => {
        const { rt, groups } = groupsAfter(s);
        const decoded = decode(encode(groups), (h) => rt.definitionByHash(h));
        expect(decoded.skipped).toBe(0);
        expect(plain(decoded.groups)).toEqual(plain(byKey(groups)));
      }),
      { numRuns: 100 },
    );
  });

  it('starts fresh on an unknown version or a malformed snapshot', () => {
    expect(decode({ version: CORRELATION_CODEC_VERSION + 1, groups: [] }, () => undefined)).toEqual({ groups: [], skipped: 0, fresh: 'unknown_version' });
    expect(decode('junk', () => undefined)).toEqual({ groups: [], skipped: 0, fresh: 'malformed' });
  });

  it('skips and counts entries of changed or unknown correlations and entries that do not check', () => {
    const s = {
      ...fc.sample(arbScenario('event_count'), { numRuns: 1, seed: 7 })[0],
      steps: [
        { kind: 'hit', at: 1_000, host: 'a', rules: 1, value: undefined },
        { kind: 'hit', at: 2_000, host: 'b', rules: 1, value: undefined },
      ],
      cap: 100,
    } as Parameters<typeof buildScenario>[0];
    const { rt: built } = buildScenario(s, 'event_count');
    s.steps.forEach((op, i) => op.kind === 'hit' && built.onEvent(matchesOf(op.rules), eventOf(op, i), 0));
    const encoded = encode(built.snapshot());
    expect(encoded.groups).toHaveLength(2);
    const tampered = { ...encoded, groups: [{ ...(encoded.groups[0] as object), ts: [5, 1], values: [] }, encoded.groups[1], { nonsense: true }] };
    const decoded = decode(tampered, (h) => built.definitionByHash(h));
    expect([decoded.groups.length, decoded.skipped]).toEqual([1, 2]);
    expect(decode(encoded, () => undefined)).toEqual({ groups: [], skipped: 2 });
  });
});

/** The codec's order: one correlation here, so by group id. */
function byKey(groups: readonly GroupState[]): GroupState[] {
  return [...groups].sort((a, b) => compareGroupIds(a.id, b.id));
}
