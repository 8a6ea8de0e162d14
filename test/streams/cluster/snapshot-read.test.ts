// Reading a partition snapshot while it is replaced (issue 21): a put purges the replaced object's
// chunks, and the object store's read of them then waits for ever (seen against a real server: one
// read in 40 hung when a put landed under it). That read held up a takeover and, with it, its node's
// lease round for good. The read now notices the object was replaced and reads the new one.
import type { ObjectInfo, ObjectResult, ObjectStore } from '@nats-io/obj';
import { describe, expect, it } from 'vitest';
import { readSnapshot } from '../../../streams/cluster/cluster-bus.js';
import { SimulatedClock } from '../support.js';

/** An object whose chunks are all there (`data`), or were purged (undefined: the stream never ends). */
function result(nuid: string, data: Uint8Array | undefined): ObjectResult {
  return {
    info: { nuid } as ObjectInfo,
    data: new ReadableStream<Uint8Array>({
      start(c) {
        if (data === undefined) return;
        c.enqueue(data);
        c.close();
      },
    }),
    error: Promise.resolve(null),
  } as ObjectResult;
}

describe('a snapshot read', () => {
  it('reads the new snapshot when the one it was reading is replaced under it', async () => {
    const clock = new SimulatedClock();
    const fresh = new TextEncoder().encode('new');
    // The first read got the old meta; a put replaced the object and purged the old chunks.
    const answers = [result('old', undefined), result('new', fresh)];
    const store: Pick<ObjectStore, 'get' | 'info'> = {
      get: () => Promise.resolve(answers.shift() ?? null),
      info: () => Promise.resolve({ nuid: 'new' } as ObjectInfo),
    };
    let done: Uint8Array | null | undefined;
    void readSnapshot(store, 'p-0', clock).then((d) => (done = d));
    await clock.advance(100);
    expect(done).toBeUndefined();
    await clock.advance(1_000);
    expect(done && new TextDecoder().decode(done)).toBe('new');
    expect(answers).toHaveLength(0);
  });

  it('reads a snapshot not replaced once, and answers null for none', async () => {
    const clock = new SimulatedClock();
    const data = new TextEncoder().encode('snap');
    let gets = 0;
    const store: Pick<ObjectStore, 'get' | 'info'> = {
      get: () => Promise.resolve(gets++ === 0 ? result('a', data) : null),
      info: () => Promise.resolve({ nuid: 'a' } as ObjectInfo),
    };
    const read = await readSnapshot(store, 'p-0', clock);
    expect(read && new TextDecoder().decode(read)).toBe('snap');
    expect(await readSnapshot(store, 'p-0', clock)).toBeNull();
    expect(gets).toBe(2);
  });
});
