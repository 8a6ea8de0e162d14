// The correlation state's entries in the state layer's registry (`corr` groups hosted by the runtime,
// `corr-tick` frontier): their event checks and codecs, and `recover`/`snapshotKinds` over them.
import { describe, expect, it } from 'vitest';
import { actorKey, CORRELATION_CODEC_VERSION, CorrelationRuntime, definitionHashes } from '../../actors/correlation/index.js';
import type { CorrelationEvent } from '../../actors/correlation/index.js';
import { compileCorrelations } from '../../sigma/correlation/index.js';
import { createKindRegistry, DEFINITIONS_KIND, openMemoryStateStore, recover, snapshotKinds, StateCorruptionError } from '../../state/index.js';
import type { AnyJournaledKind, JournalDraft, StateStore } from '../../state/index.js';
import { CORRELATION_KIND, CORRELATION_TICK_KIND, createCorrelationKinds } from '../../streams/index.js';
import { correlationRule, detections } from '../sigma/correlation/rule-fixtures.js';

const rules = [
  correlationRule({ id: 'cid', type: 'event_count', rules: ['r0'], groupBy: ['host', 'user'], condition: { ops: { gte: 2 } } }),
  correlationRule({ title: 'anonymous', type: 'temporal', rules: ['r0', 'r1'] }),
];
const set = compileCorrelations(rules, detections(2));
const defs = set.correlations;
const [counted, temporal] = defs as [NonNullable<(typeof defs)[0]>, NonNullable<(typeof defs)[0]>];
const OPTIONS = { timestampFields: ['t'] };

/** A runtime over `defs` with its registry entries, as the daemon wires them for one start-up. */
function wired(over = defs) {
  const runtime = new CorrelationRuntime(over, OPTIONS);
  const frontier = { tickedAt: -1 };
  const correlation = createCorrelationKinds(() => runtime, frontier);
  const [groups, tick] = correlation.kinds as [AnyJournaledKind, AnyJournaledKind];
  return { runtime, frontier, correlation, groups, tick, registry: createKindRegistry(correlation.kinds) };
}

/** A live runtime's journal for a few events and a tick, committed as one batch. */
async function liveJournal(store: StateStore): Promise<CorrelationRuntime> {
  const drafts: JournalDraft[] = [];
  const live = new CorrelationRuntime(defs, { ...OPTIONS, record: (key: string, event: CorrelationEvent) => drafts.push({ at: 0, kind: CORRELATION_KIND, key, event }) });
  live.onEvent([{ name: 'r0' }], { t: 1, host: 'a', user: 'x' }, 0);
  live.onEvent([{ name: 'r1' }], { t: 2, host: 'b' }, 0);
  live.onEvent([{ name: 'r0' }], { t: 3, host: 'a', user: 'x' }, 0);
  live.onEvent([{ name: 'r0' }], { t: 4, host: 'c', user: 'y' }, 0);
  drafts.push({ at: 0, kind: CORRELATION_TICK_KIND, key: '', event: { now: 4 } });
  await store.commitBatch({ records: [{ at: 0, kind: DEFINITIONS_KIND, key: '', event: { hashes: definitionHashes(defs) } }, ...drafts] });
  return live;
}

describe('correlation kinds in the state registry', () => {
  it('name definition groups and their hashes, which snapshots and `$definitions` records carry', () => {
    expect(definitionHashes(defs)).toEqual({ 'corr:cid': counted.hash, [`corr:${temporal.hash}`]: temporal.hash });
    expect(wired().groups.definitions?.()).toEqual(definitionHashes(defs));
    expect(wired().tick.definitions).toBeUndefined();
  });

  it('round-trip a group through the codec and reject what they cannot rebuild', () => {
    const { groups, runtime } = wired();
    runtime.onEvent([{ name: 'r0' }], { t: 1000, host: 'a', user: 'b' }, 0);
    const [state] = [...groups.states()].map(([, s]) => s);
    const encoded: unknown = JSON.parse(JSON.stringify(groups.codec.encode(state)));
    expect(groups.codec.decode(encoded, CORRELATION_CODEC_VERSION)).toEqual(state);
    expect(groups.codec.decode(encoded, CORRELATION_CODEC_VERSION + 1)).toBeUndefined();
    expect(wired([temporal]).groups.codec.decode(encoded, CORRELATION_CODEC_VERSION)).toBeUndefined();
  });

  it('check journaled events against their schemas', () => {
    const { groups, tick } = wired();
    expect(groups.isEvent({ kind: 'hit', at: 1, rules: 1 })).toBe(true);
    expect(groups.isEvent({ kind: 'hit', at: -1, rules: 1 })).toBe(false);
    expect(groups.isEvent({ kind: 'tick' })).toBe(false);
    expect(tick.isEvent({ now: 5 })).toBe(true);
    expect(tick.isEvent({ now: '5' })).toBe(false);
  });

  it('rebuild the live runtime’s groups and tick frontier by replaying its journal', async () => {
    const store = await openMemoryStateStore();
    const live = await liveJournal(store);
    const w = wired();
    const recovered = await recover(store, w.registry);
    expect(recovered).toMatchObject({ seq: 9, replayed: 8, skipped: [], definitionsChanged: false });
    expect(w.runtime.groupSnapshots()).toEqual(live.groupSnapshots());
    expect(w.runtime.stateEntries).toBe(3);
    expect(w.frontier.tickedAt).toBe(4);
    expect(w.runtime.streamTime).toBe(live.streamTime);
    expect(w.correlation.report()).toEqual({ dropped: 0, droppedState: [] });
  });

  it('snapshot through snapshotKinds and restore the same groups and frontier', async () => {
    const store = await openMemoryStateStore();
    const live = await liveJournal(store);
    const first = wired();
    await recover(store, first.registry);
    expect(await snapshotKinds(store, first.registry, 77)).toBe(true);
    const header = store.loadSnapshotBase('fail').snapshot?.header;
    expect(header).toMatchObject({ seq: 9, at: 77, kinds: { corr: { version: CORRELATION_CODEC_VERSION, count: 3 }, 'corr-tick': { version: 2, count: 1 } } });
    expect(header?.definitions).toEqual(definitionHashes(defs));
    const second = wired();
    const recovered = await recover(store, second.registry);
    expect(recovered).toMatchObject({ snapshotSeq: 9, snapshotAt: 77, replayed: 0, undecodable: 0 });
    expect(second.runtime.groupSnapshots()).toEqual(live.groupSnapshots());
    expect(second.frontier.tickedAt).toBe(4);
    expect(second.runtime.streamTime).toBe(live.streamTime);
  });

  it('read a version-1 tick entry (the frontier alone) as the frontier and the stream time', () => {
    const { tick } = wired();
    expect(tick.codec.decode(4, 1)).toEqual({ tickedAt: 4, time: 4 });
    expect(tick.codec.decode({ tickedAt: 4, time: 9 }, 2)).toEqual({ tickedAt: 4, time: 9 });
    expect(tick.codec.decode(4, 2)).toBeUndefined();
  });

  it('drop and report the groups of a correlation whose definition changed, and ask for a `$definitions` record', async () => {
    const store = await openMemoryStateStore();
    await liveJournal(store);
    const changed = compileCorrelations([correlationRule({ id: 'cid', type: 'event_count', rules: ['r0'], groupBy: ['host', 'user'], condition: { ops: { gte: 3 } } }), rules[1]!], detections(2));
    const w = wired(changed.correlations);
    const recovered = await recover(store, w.registry);
    expect(recovered.definitionsChanged).toBe(true);
    expect(recovered.definitions).toEqual(definitionHashes(defs));
    expect(w.runtime.stateEntries).toBe(1);
    expect(w.correlation.report()).toEqual({ dropped: 3, droppedState: [{ correlation: 'cid', reason: 'changed', groups: 2 }] });
  });

  it('refuse a record that fits no kind, naming its sequence, unless told to skip it', async () => {
    const store = await openMemoryStateStore();
    await store.commitBatch({
      records: [
        { at: 0, kind: CORRELATION_KIND, key: actorKey(counted, ['a', 'b']), event: { kind: 'hit', rules: 1 } },
        { at: 0, kind: 'corr-future', key: '', event: {} },
        { at: 0, kind: CORRELATION_TICK_KIND, key: '', event: { now: 'later' } },
        { at: 0, kind: DEFINITIONS_KIND, key: '', event: { hashes: 'none' } },
        { at: 0, kind: CORRELATION_KIND, key: `${actorKey(counted, ['a', 'b'])}:extra`, event: { kind: 'hit', at: 1, rules: 1 } },
      ],
    });
    await expect(recover(store, wired().registry)).rejects.toThrow(StateCorruptionError);
    await expect(recover(store, wired().registry)).rejects.toMatchObject({ seq: 1, message: expect.stringContaining('journal record 1 is not a correlation group event') });
    const skipped = await recover(store, wired().registry, { mode: 'skip' });
    expect(skipped.skipped).toEqual([1, 2, 3, 4, 5]);
  });

  it('refuse registering one kind name twice or the reserved name', () => {
    const { groups } = wired();
    expect(() => createKindRegistry([groups, groups])).toThrow(/twice/);
    expect(() => createKindRegistry([{ ...wired().tick, kind: DEFINITIONS_KIND }])).toThrow(/reserved/);
  });
});
