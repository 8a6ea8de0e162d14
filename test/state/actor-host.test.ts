import { describe, expect, it } from 'vitest';
import { ActorHost, createKindRegistry, openMemoryStateStore, recover } from '../../src/state/index.js';
import type { StateStore } from '../../src/state/index.js';
import { counterKind, dedupKind } from './support/toy-kinds.js';

const registry = createKindRegistry([counterKind]);

async function hostOver(store: StateStore, policy = { every: 5, intervalMs: 1000 }): Promise<ActorHost> {
  return new ActorHost({ store, registry, recovered: await recover(store, registry), snapshotPolicy: policy });
}

describe('actor host', () => {
  it('journals each dispatched event with the batch and returns the transition effects', async () => {
    const store = await openMemoryStateStore();
    const host = await hostOver(store);
    expect(host.dispatch(counterKind, 'r/a', { type: 'hit', at: 1 }, 1)).toEqual([]);
    host.dispatch(counterKind, 'r/a', { type: 'hit', at: 2 }, 2);
    expect(host.dispatch(counterKind, 'r/a', { type: 'hit', at: 3 }, 3)).toEqual([{ type: 'emit_result', count: 3 }]);
    expect(host.pendingRecords).toBe(3);
    expect(await host.commit()).toMatchObject({ firstSeq: 1, lastSeq: 3 });
    expect(host.pendingRecords).toBe(0);
    // The fired group is back at its initial state, so it is forgotten.
    expect(host.state(counterKind, 'r/a')).toBeUndefined();
  });

  it('refuses a kind that is not registered with it', async () => {
    const host = await hostOver(await openMemoryStateStore());
    expect(() => host.dispatch(dedupKind, 'd', { type: 'seen', fingerprint: 'x' }, 0)).toThrow(/not registered/);
  });

  it('does not snapshot in the middle of a batch', async () => {
    const host = await hostOver(await openMemoryStateStore());
    host.dispatch(counterKind, 'r/a', { type: 'hit', at: 1 }, 1);
    await expect(host.snapshot(0)).rejects.toThrow(/uncommitted batch/);
    expect(await host.maybeSnapshot(1_000_000)).toBeUndefined();
  });

  it('snapshots every N records or after the interval, and not when nothing changed', async () => {
    const store = await openMemoryStateStore();
    const host = await hostOver(store);
    expect(await host.maybeSnapshot(0)).toBeUndefined();
    for (let i = 0; i < 5; i++) host.dispatch(counterKind, `r/${i}`, { type: 'hit', at: i }, i);
    await host.commit();
    expect(await host.maybeSnapshot(10)).toBe('records');
    expect(store.loadSnapshotBase('fail').seq).toBe(5);
    host.dispatch(counterKind, 'r/x', { type: 'hit', at: 20 }, 20);
    await host.commit();
    expect(await host.maybeSnapshot(500)).toBeUndefined();
    expect(await host.maybeSnapshot(1010)).toBe('interval');
    expect(await host.maybeSnapshot(5000)).toBeUndefined();
    expect(store.loadSnapshotBase('fail').snapshot?.header).toMatchObject({ seq: 6, at: 1010, kinds: { counter: { version: 2, count: 6 } } });
  });

  it('calls the crash hook after evaluation, before anything is committed', async () => {
    const store = await openMemoryStateStore();
    const host = new ActorHost({
      store,
      registry,
      recovered: await recover(store, registry),
      crashHook: (p) => {
        if (p === 'after-eval') throw new Error('crash');
      },
    });
    host.dispatch(counterKind, 'r/a', { type: 'hit', at: 1 }, 1);
    expect(() => host.commit()).toThrow('crash');
    expect(store.lastSeq).toBe(0);
  });
});
