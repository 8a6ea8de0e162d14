import { describe, expect, it } from 'vitest';
import type { AnyActorKind } from '../../src/actors/index.js';
import { ActorHost, createKindRegistry, openMemoryStateStore, recover, StateCorruptionError } from '../../src/state/index.js';
import type { StateStore } from '../../src/state/index.js';
import { counterKind, dedupKind } from './support/toy-kinds.js';

const registry = createKindRegistry([counterKind, dedupKind]);

async function storeWithSnapshot(kinds: { kind: string; version: number; entries: [string, unknown][] }[]): Promise<StateStore> {
  const store = await openMemoryStateStore();
  await store.commitBatch({ records: [{ at: 0, kind: 'dedup', key: 'd', event: { type: 'seen', fingerprint: 'z' } }] });
  await store.writeSnapshot({ seq: 1, at: 77, kinds, definitions: { ruleA: 'h1' } });
  return store;
}

describe('recover', () => {
  it('starts from initial states when nothing was stored', async () => {
    const recovered = await recover(await openMemoryStateStore(), registry);
    expect(recovered.seq).toBe(0);
    expect([...recovered.states.keys()]).toEqual(['counter', 'dedup']);
    expect(recovered.stats.replayed).toBe(0);
  });

  it('restores snapshot entries through each codec, upgrading older versions', async () => {
    const store = await storeWithSnapshot([
      { kind: 'counter', version: 1, entries: [['ruleA/x', { count: 2, windowStart: 5 }]] },
      { kind: 'dedup', version: 1, entries: [['d', ['a']]] },
    ]);
    const recovered = await recover(store, registry);
    expect(recovered.states.get('counter')?.get('ruleA/x')).toEqual({ count: 2, windowStart: 5 });
    expect(recovered.states.get('dedup')?.get('d')).toEqual({ seen: ['a'] });
    expect(recovered.definitions).toEqual({ ruleA: 'h1' });
    expect(recovered.stats).toMatchObject({ snapshotSeq: 1, snapshotAt: 77, undecodableStates: 0, freshKinds: [] });
  });

  it('skips and counts entries a codec rejects, and starts a kind fresh when its stored version is unknown', async () => {
    const store = await storeWithSnapshot([
      { kind: 'counter', version: 2, entries: [['ruleA/x', [1, 2]], ['ruleA/y', 'garbage']] },
      { kind: 'dedup', version: 9, entries: [['d', ['a']]] },
      { kind: 'retired-kind', version: 1, entries: [['q', 1]] },
    ]);
    const recovered = await recover(store, registry);
    expect([...(recovered.states.get('counter')?.keys() ?? [])]).toEqual(['ruleA/x']);
    expect(recovered.states.get('dedup')?.size).toBe(0);
    expect(recovered.stats).toMatchObject({ undecodableStates: 1, freshKinds: ['dedup'], unknownKinds: ['retired-kind'] });
  });

  it('replays the journal after the snapshot and reports progress in slices', async () => {
    const store = await openMemoryStateStore();
    for (let i = 0; i < 10; i++) await store.commitBatch({ records: [{ at: i, kind: 'dedup', key: `d${i % 2}`, event: { type: 'seen', fingerprint: `f${i}` } }] });
    const progress: number[] = [];
    const recovered = await recover(store, registry, { sliceSize: 4, onProgress: (p) => progress.push(p.replayed) });
    expect(progress).toEqual([4, 8, 10]);
    expect(recovered.seq).toBe(10);
    expect(recovered.states.get('dedup')?.get('d1')).toEqual({ seen: ['f3', 'f5', 'f7', 'f9'] });
  });

  it('treats an event its kind does not recognise as unreadable, naming the sequence', async () => {
    const store = await openMemoryStateStore();
    await store.commitBatch({ records: [{ at: 0, kind: 'counter', key: 'ruleA/x', event: { type: 'bogus' } }] });
    await expect(recover(store, registry)).rejects.toThrow(StateCorruptionError);
    await expect(recover(store, registry)).rejects.toMatchObject({ seq: 1 });
    const skipped = await recover(store, registry, { mode: 'skip' });
    expect(skipped.stats.skippedRecords).toEqual([1]);
  });

  it('replays definition changes: a changed or removed rule loses its state, an unchanged one keeps it', async () => {
    const store = await openMemoryStateStore();
    const host = new ActorHost({ store, registry, recovered: await recover(store, registry) });
    host.updateDefinitions({ ruleA: 'a1', ruleB: 'b1', ruleC: 'c1' }, 0);
    for (const key of ['ruleA/h', 'ruleB/h', 'ruleC/h']) host.dispatch(counterKind, key, { type: 'hit', at: 1 }, 1);
    await host.commit();
    const change = host.updateDefinitions({ ruleA: 'a1', ruleB: 'b2', ruleD: 'd1' }, 2);
    expect(change).toEqual({ kept: ['ruleA'], changed: ['ruleB'], removed: ['ruleC'], added: ['ruleD'], droppedStates: 2 });
    expect(host.updateDefinitions({ ruleA: 'a1', ruleB: 'b2', ruleD: 'd1' }, 3).droppedStates).toBe(0);
    host.dispatch(counterKind, 'ruleB/h', { type: 'hit', at: 4 }, 4);
    await host.commit();
    const live = [...(host.states.get('counter')?.entries() ?? [])];
    const recovered = await recover(store, registry);
    expect([...(recovered.states.get('counter')?.entries() ?? [])]).toEqual(live);
    expect(recovered.definitions).toEqual({ ruleA: 'a1', ruleB: 'b2', ruleD: 'd1' });
    expect(recovered.stats.droppedByDefinitions).toBe(2);
  });

  it('rejects registering one kind name twice or the reserved name', () => {
    expect(() => createKindRegistry([counterKind, counterKind])).toThrow(/twice/);
    const reserved: AnyActorKind = { ...dedupKind, kind: '$definitions' };
    expect(() => createKindRegistry([reserved])).toThrow(/reserved/);
  });
});
