// The generic start-up and snapshot driver over registered kinds. The daemon's own kinds (`corr`,
// `corr-tick`) have their tests in test/streams/correlation-kinds.test.ts; here a minimal kind shows
// what the driver promises any kind: codecs with versions, definition fan-out, unfit records by sequence.
import { describe, expect, it } from 'vitest';
import { createKindRegistry, DEFINITIONS_KIND, openMemoryStateStore, recover, snapshotKinds, StateCorruptionError } from '../../state/index.js';
import type { DefinitionHashes, JournaledKind, StateStore } from '../../state/index.js';

/** A kind counting `{n}` events per key, hosted in a map; it records what the driver told it. */
function counterKind() {
  const host = new Map<string, number>();
  const told = { inForce: [] as DefinitionHashes[], undecodable: [] as unknown[], restores: 0 };
  const kind: JournaledKind<{ n: number }, [string, number]> = {
    kind: 'counter',
    malformed: 'is not a counter event',
    isEvent: (e): e is { n: number } => typeof e === 'object' && e !== null && 'n' in e && typeof e.n === 'number',
    codec: {
      version: 2,
      encode: (s) => s,
      // Version 1 stored `{key, count}`.
      decode(x, version) {
        if (version === 1 && typeof x === 'object' && x !== null && 'key' in x && 'count' in x) return [String(x.key), Number(x.count)];
        return version === 2 && Array.isArray(x) && typeof x[0] === 'string' && typeof x[1] === 'number' ? [x[0], x[1]] : undefined;
      },
    },
    restore(states) {
      told.restores++;
      host.clear();
      for (const [k, n] of states) host.set(k, n);
    },
    replay(key, event) {
      if (key === '') return { unfit: 'has no counter key' };
      if (key.startsWith('gone/')) return 'dropped';
      host.set(key, (host.get(key) ?? 0) + event.n);
      return 'applied';
    },
    states: () => [...host].map(([k, n]) => [k, [k, n]] as const),
    definitions: () => ({ counter: 'h2' }),
    definitionsInForce: (h) => void told.inForce.push(h),
    undecodable: (x) => void told.undecodable.push(x),
  };
  return { kind, host, told, registry: createKindRegistry([kind]) };
}

async function commit(store: StateStore, ...records: { kind: string; key: string; event: unknown }[]): Promise<void> {
  await store.commitBatch({ records: records.map((r) => ({ at: 0, ...r })) });
}

describe('recover and snapshotKinds', () => {
  it('start every kind from no states when nothing was stored, and ask for a `$definitions` record', async () => {
    const c = counterKind();
    const recovered = await recover(await openMemoryStateStore(), c.registry);
    expect(recovered).toMatchObject({ seq: 0, snapshotSeq: 0, replayed: 0, definitions: {}, definitionsChanged: true });
    expect(c.told).toEqual({ inForce: [{}], undecodable: [], restores: 1 });
  });

  it('restore snapshot entries through the codec with their stored version; count, report and skip the rest', async () => {
    const store = await openMemoryStateStore();
    await commit(store, { kind: 'counter', key: 'a', event: { n: 1 } });
    await store.writeSnapshot({
      seq: 1,
      at: 77,
      kinds: [
        { kind: 'counter', version: 1, entries: [['0', { key: 'a', count: 5 }], ['1', 'garbage']] },
        { kind: 'retired-kind', version: 1, entries: [['q', 1]] },
      ],
      definitions: { counter: 'h1' },
    });
    const c = counterKind();
    const recovered = await recover(store, c.registry);
    expect([...c.host]).toEqual([['a', 5]]);
    expect(recovered).toMatchObject({ snapshotSeq: 1, snapshotAt: 77, undecodable: 1, unknownSnapshotKinds: ['retired-kind'], definitions: { counter: 'h1' } });
    expect(c.told.undecodable).toEqual(['garbage']);
    expect(c.told.inForce).toEqual([{ counter: 'h1' }]);
  });

  it('replay the journal after the snapshot in slices, fan `$definitions` records out to every kind, and count what was applied', async () => {
    const store = await openMemoryStateStore();
    for (let i = 0; i < 9; i++) await commit(store, { kind: 'counter', key: i === 4 ? 'gone/x' : `k${i % 2}`, event: { n: 1 } });
    await commit(store, { kind: DEFINITIONS_KIND, key: '', event: { hashes: { counter: 'h2' } } });
    const progress: number[] = [];
    const c = counterKind();
    const recovered = await recover(store, c.registry, { sliceSize: 4, onProgress: (p) => progress.push(p.replayed) });
    expect(progress).toEqual([4, 8, 10]);
    expect(recovered).toMatchObject({ seq: 10, replayed: 8, definitions: { counter: 'h2' }, definitionsChanged: false });
    expect([...c.host]).toEqual([['k0', 4], ['k1', 4]]);
    expect(c.told.inForce).toEqual([{}, { counter: 'h2' }]);
  });

  it('stop at a record that fits no kind, naming its sequence, unless told to skip it', async () => {
    const store = await openMemoryStateStore();
    await commit(
      store,
      { kind: 'counter', key: 'a', event: { n: 'one' } },
      { kind: 'counter', key: '', event: { n: 1 } },
      { kind: 'nobody', key: 'a', event: {} },
      { kind: DEFINITIONS_KIND, key: '', event: { hashes: 7 } },
      { kind: 'counter', key: 'a', event: { n: 1 } },
    );
    const cases: [number, string][] = [
      [1, 'journal record 1 is not a counter event'],
      [2, 'journal record 2 has no counter key'],
      [3, "journal record 3 has an unknown kind 'nobody'"],
      [4, 'journal record 4 is a malformed $definitions record'],
    ];
    for (const [seq, message] of cases) {
      const c = counterKind();
      const error = await recover(store, c.registry).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StateCorruptionError);
      expect(error).toMatchObject({ seq, message: expect.stringContaining(message) });
      // Only the first one stops start-up: take it out of the way for the next case.
      await store.writeSnapshot({ seq, at: 0, kinds: [], definitions: {} });
    }
    const skipping = await openMemoryStateStore();
    await commit(skipping, { kind: 'counter', key: '', event: { n: 1 } }, { kind: 'nobody', key: 'a', event: {} }, { kind: 'counter', key: 'a', event: { n: 1 } });
    const c = counterKind();
    expect(await recover(skipping, c.registry, { mode: 'skip' })).toMatchObject({ skipped: [1, 2], replayed: 1 });
    expect([...c.host]).toEqual([['a', 1]]);
  });

  it('snapshot every kind’s live states with its codec version and the definitions it runs', async () => {
    const store = await openMemoryStateStore();
    await commit(store, { kind: 'counter', key: 'a', event: { n: 2 } }, { kind: 'counter', key: 'b', event: { n: 3 } });
    const c = counterKind();
    await recover(store, c.registry);
    expect(await snapshotKinds(store, c.registry, 50)).toBe(true);
    const snap = store.loadSnapshotBase('fail').snapshot;
    expect(snap?.header).toMatchObject({ seq: 2, at: 50, kinds: { counter: { version: 2, count: 2 } }, definitions: { counter: 'h2' } });
    expect(snap?.chunks.flatMap((ch) => ch.entries)).toEqual([['a', ['a', 2]], ['b', ['b', 3]]]);
    const again = counterKind();
    expect(await recover(store, again.registry)).toMatchObject({ snapshotSeq: 2, replayed: 0, definitionsChanged: false });
    expect([...again.host]).toEqual([['a', 2], ['b', 3]]);
  });

  it('refuse registering one kind name twice or the reserved name', () => {
    const { kind } = counterKind();
    expect(() => createKindRegistry([kind, kind])).toThrow(/twice/);
    expect(() => createKindRegistry([{ ...kind, kind: DEFINITIONS_KIND }])).toThrow(/reserved/);
  });
});
