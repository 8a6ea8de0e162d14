import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { LmdbBackend } from '../../state/lmdb-backend.js';
import { openLmdbStateStore } from '../../state/index.js';
import type { CommitResult } from '../../state/index.js';
import { useTempDirs } from './support/temp-dirs.js';

describe('lmdb state store', () => {
  const tempDir = useTempDirs();

  it("commits a batch's journal records and outbox entries together or not at all", async () => {
    const dir = tempDir();
    const store = await openLmdbStateStore(dir, { sinks: ['file'] });
    // A second, read-only environment handle sees only committed transactions, like another process.
    const reader = new LmdbBackend(dir, { readOnly: true });
    const commits: Promise<CommitResult>[] = [];
    for (let b = 0; b < 200; b++) {
      commits.push(
        store.commitBatch({
          records: [0, 1, 2].map((i) => ({ at: b, kind: 'counter', key: `k${i}`, event: { type: 'hit', at: b } })),
          outbox: [{ result_id: `r${b}-0`, payload: b }, { result_id: `r${b}-1`, payload: b }],
        }),
      );
    }
    let observations = 0;
    let settled = false;
    void Promise.all(commits).then(() => (settled = true));
    while (!settled) {
      // One journal value and one outbox value per batch, keyed by the batch's last sequences.
      const journal = [...reader.range('journal')].map((e) => e.key as number);
      const outbox = [...reader.range('outbox')].map((e) => e.key as number);
      expect(journal.map((seq) => seq / 3)).toEqual(outbox.map((oseq) => oseq / 2));
      observations++;
      await nextTurn();
    }
    const last = await commits[199];
    expect(last).toEqual({ firstSeq: 598, lastSeq: 600, firstOseq: 399, lastOseq: 400 });
    // (The reader's snapshot renews on its own schedule; the writer's view is current.)
    expect(store.replay(0, () => undefined, 'fail').replayed).toBe(600);
    expect(observations).toBeGreaterThan(0);
    await reader.close();
    await store.close();
  });

  it('keeps the file size bounded under constant load with periodic snapshots', async () => {
    const dir = tempDir();
    const store = await openLmdbStateStore(dir, { sinks: ['file'] });
    const payload = 'x'.repeat(150);
    const sizes: number[] = [];
    for (let round = 0; round < 12; round++) {
      const commits: Promise<CommitResult>[] = [];
      for (let b = 0; b < 10; b++) {
        commits.push(
          store.commitBatch({
            records: Array.from({ length: 200 }, (_, i) => ({ at: round, kind: 'counter', key: `k${i}`, event: { type: 'hit', at: round, payload } })),
            outbox: Array.from({ length: 40 }, (_, i) => ({ result_id: `r${round}-${b}-${i}`, payload })),
          }),
        );
      }
      const { lastOseq } = (await Promise.all(commits))[9] ?? { lastOseq: 0 };
      await store.ackDelivered('file', lastOseq);
      const states: [string, unknown][] = Array.from({ length: 2000 }, (_, i) => [`k${i}`, [round, i, payload]]);
      await store.writeSnapshot({ seq: store.lastSeq, at: round, kinds: [{ kind: 'counter', version: 1, entries: states }], definitions: {} });
      sizes.push(store.backend.sizeBytes());
    }
    const settledSize = sizes[5] ?? 0;
    expect(settledSize).toBeGreaterThan(0);
    // Freed pages are reused once readers move on, so the file stops growing (libraries.md §5).
    expect(Math.max(...sizes.slice(6))).toBeLessThanOrEqual(settledSize * 1.2);
    await store.close();
  });
});
