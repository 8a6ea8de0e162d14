// Issue 6: rule changes across reloads and restarts. Recovery must reproduce what the live daemon
// did: an uninterrupted run that applies every rule change as a hot reload is the oracle; the crash
// run applies some of them as restarts (no graceful snapshot) and must end in the same state.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryBackend } from '../../state/index.js';
import type { RuleSet } from '../../sigma/rule-set.js';
import { CRASH_RULES, crashLaneEvent, crashLaneLines, failedLogon, openHarness, ruleSetFrom } from './pipeline-harness.js';
import type { CrashLaneEvent, Harness } from './pipeline-harness.js';

const EVENT_COUNT_ID = '7c0a0000-0000-4000-8000-000000000011';
const edit = (file: string, from: string, to: string) => ruleSetFrom(CRASH_RULES, (f, t) => (f === file ? t.replace(from, to) : t));

/** Rule sets an operator could switch between: changed thresholds, a removal and a rename (same hash). */
const VARIANTS: readonly RuleSet[] = [
  ruleSetFrom(CRASH_RULES),
  edit('corr-event-count.yml', 'gte: 3', 'gte: 4'),
  edit('corr-value-count.yml', 'gte: 3', 'gte: 4'),
  ruleSetFrom(CRASH_RULES, (f, t) => (f === 'corr-value-sum.yml' ? '' : t)),
  edit('corr-event-count.yml', EVENT_COUNT_ID, '7c0a0000-0000-4000-8000-000000000021'),
];

type Op =
  | { readonly op: 'send'; readonly events: readonly CrashLaneEvent[] }
  | { readonly op: 'snapshot' }
  | { readonly op: 'reload'; readonly variant: number }
  | { readonly op: 'restart'; readonly variant: number };

const arbEvent = crashLaneEvent(40);
const arbVariant = fc.integer({ min: 0, max: VARIANTS.length - 1 });
const arbOp: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ op: fc.constant('send' as const), events: fc.array(arbEvent, { minLength: 1, maxLength: 5 }) }) },
  { weight: 1, arbitrary: fc.constant({ op: 'snapshot' as const }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('reload' as const), variant: arbVariant }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('restart' as const), variant: arbVariant }) },
);

/** What a run ends with: its groups, tick frontier and every result it committed (id and title). */
interface Outcome {
  readonly groups: unknown;
  readonly tickedAt: number;
  readonly results: string[];
}

async function runOps(ops: readonly Op[], restarts: boolean): Promise<Outcome> {
  const backend = new MemoryBackend();
  let h: Harness = await openHarness(VARIANTS[0] as RuleSet, backend);
  const results: string[] = [];
  const clock = { s: 0 };
  const keep = (x: Harness) => results.push(...x.committed.map((r) => `${String(r.result_id)} ${String(r.rule_title)}`));
  for (const op of ops) {
    if (op.op === 'send') await h.send(crashLaneLines(op.events, clock));
    else if (op.op === 'snapshot') await h.snapshot();
    else if (op.op === 'reload' || !restarts) await h.reload(VARIANTS[op.variant] as RuleSet);
    else {
      keep(h);
      h = await openHarness(VARIANTS[op.variant] as RuleSet, backend);
    }
  }
  keep(h);
  // A last restart on the rules in force must change nothing either.
  const again = await openHarness(h.active().ruleSet, backend);
  return { groups: again.active().runtime.groupSnapshots(), tickedAt: again.journal.tickedAt, results };
}

describe('correlation state across rule changes', () => {
  it('replays reloads and restarts with changed rules into the state of an uninterrupted run', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(arbOp, { minLength: 1, maxLength: 14 }), async (ops) => {
        const oracle = await runOps(ops, false);
        const crashed = await runOps(ops, true);
        expect(crashed.groups).toEqual(oracle.groups);
        expect(crashed.tickedAt).toBe(oracle.tickedAt);
        expect(crashed.results).toEqual(oracle.results);
      }),
      { numRuns: 150 },
    );
  });

  it('does not bring back the groups a reload dropped when the rule is restored across a restart (with or without a snapshot)', async () => {
    for (const snapshotFirst of [false, true]) {
      const backend = new MemoryBackend();
      const live = await openHarness(VARIANTS[0] as RuleSet, backend);
      await live.send([failedLogon('h', 1), failedLogon('h', 2)]);
      if (snapshotFirst) await live.snapshot();
      expect(await live.reload(VARIANTS[1] as RuleSet)).toEqual([{ correlation: EVENT_COUNT_ID, reason: 'changed', groups: 1 }]);
      const restored = await openHarness(VARIANTS[0] as RuleSet, backend);
      expect(restored.active().runtime.groupSnapshots()).toEqual([]);
      expect(restored.lost.droppedState).toEqual([]);
      // The reverted rule starts counting afresh: two more failures do not reach its threshold of 3.
      await restored.send([failedLogon('h', 3), failedLogon('h', 4)]);
      expect(restored.committed).toEqual([]);
    }
  });

  it('reports the groups a restart with changed or removed rules drops', async () => {
    const backend = new MemoryBackend();
    const live = await openHarness(VARIANTS[0] as RuleSet, backend);
    await live.send([failedLogon('h1', 1), failedLogon('h2', 2), JSON.stringify({ EventID: 3, Bytes: 10, Computer: 'h1', '@timestamp': '2024-01-01T00:00:03Z' })]);
    const changed = await openHarness(VARIANTS[1] as RuleSet, backend);
    expect(changed.lost.droppedState).toEqual([{ correlation: EVENT_COUNT_ID, reason: 'changed', groups: 2 }]);
    const removed = await openHarness(VARIANTS[3] as RuleSet, backend);
    expect(removed.lost.droppedState).toEqual([{ correlation: '7c0a0000-0000-4000-8000-000000000014', reason: 'removed', groups: 1 }]);
  });
});
