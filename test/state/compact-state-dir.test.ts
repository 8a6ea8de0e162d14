import { describe, expect, it } from 'vitest';
import { compactStateDir, openLmdbStateStore } from '../../state/index.js';
import { useTempDirs } from './support/temp-dirs.js';

describe('state compaction', () => {
  const tempDir = useTempDirs();

  it('shrinks the file after old journal was deleted and keeps everything live', async () => {
    const dir = tempDir();
    const store = await openLmdbStateStore(dir);
    const big = 'x'.repeat(500);
    for (let b = 0; b < 10; b++) {
      await store.commitBatch({ records: Array.from({ length: 500 }, (_, i) => ({ at: b, kind: 'counter', key: `k${i}`, event: { big } })) });
    }
    await store.writeSnapshot({ seq: 4000, at: 1, kinds: [], definitions: {} });
    await store.writeSnapshot({ seq: 5000, at: 2, kinds: [{ kind: 'counter', version: 1, entries: [['k', 1]] }], definitions: {} });
    await store.close();
    const { beforeBytes, afterBytes } = await compactStateDir(dir);
    expect(afterBytes).toBeLessThan(beforeBytes / 2);
    const again = await openLmdbStateStore(dir);
    expect(again.lastSeq).toBe(5000);
    expect(again.firstJournalSeq()).toBe(4001);
    expect(again.loadSnapshotBase('fail').snapshot?.chunks).toEqual([{ kind: 'counter', entries: [['k', 1]] }]);
    await again.close();
  });
});
