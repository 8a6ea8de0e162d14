// A partition owner's hit feed on a starved process (issue 21): the server delivers hits without
// acknowledgements, and the process may lose any tail of a fetch (its fetch timer ran before the
// socket was read). Found by running the cluster lane beside CPU hogs: hits were lost and their
// results never emitted. Over any publishes, fetch sizes and losses, the cursor hands out every hit
// once, in stream order, and says "drained" only when it has handed out every hit stored before the
// fetch began (the owner applies up to the input floor it read then).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HitCursor } from '../../../streams/cluster/hit-cursor.js';
import type { ConsumerPort, Delivered } from '../../../streams/cluster/hit-cursor.js';

/** The server's side: a stream of the partition's hits and one consumer without acknowledgements. */
class ModelServer {
  /** Stream sequences of the partition's hits (other partitions' hits take sequences too). */
  readonly stored: number[] = [];
  private nextSeq = 1;
  /** Index in `stored` of the next hit to deliver, and the consumer's delivery sequence so far. */
  private position = 0;
  private deliveries = 0;

  publish(n: number, interleaved: number): void {
    for (let i = 0; i < n; i++) {
      this.nextSeq += interleaved;
      this.stored.push(this.nextSeq++);
    }
  }

  port(lose: () => number): ConsumerPort<Delivered> {
    return {
      fetch: async (max) => {
        const sent: Delivered[] = [];
        for (; sent.length < max && this.position < this.stored.length; this.position++) {
          const seq = this.stored[this.position] as number;
          sent.push({ seq, info: { deliverySequence: ++this.deliveries, pending: this.stored.length - this.position - 1 } });
        }
        // The process keeps a prefix of what was sent: the rest came after its fetch gave up.
        return sent.slice(0, Math.max(0, sent.length - lose()));
      },
      view: async () => ({ delivered: this.deliveries, pending: this.stored.length - this.position }),
      restart: async (after) => {
        this.position = this.stored.findIndex((s) => s > after);
        if (this.position < 0) this.position = this.stored.length;
        this.deliveries = 0;
      },
    };
  }
}

const stepArb = fc.record({
  publish: fc.integer({ min: 0, max: 6 }),
  interleaved: fc.integer({ min: 0, max: 2 }),
  max: fc.integer({ min: 1, max: 5 }),
  lose: fc.integer({ min: 0, max: 4 }),
});

describe('the hit cursor over a consumer that loses deliveries', () => {
  it('hands out every hit once, in order, and reports drained only when it has every hit stored before the fetch', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: 40 }), fc.integer({ min: 0, max: 3 }), async (steps, start) => {
        const server = new ModelServer();
        server.publish(start, 1);
        const after = server.stored[start - 1] ?? 0;
        let lose = 0;
        const port = server.port(() => lose);
        const cursor = new HitCursor(after);
        await cursor.restart(port);
        const handed: number[] = [];
        const fetchOnce = async (max: number): Promise<void> => {
          const storedBefore = [...server.stored];
          const got = await cursor.fetch(port, max, 1_000);
          handed.push(...got.msgs.map((m) => m.seq));
          if (got.drained) expect(storedBefore.filter((s) => s > after).every((s) => handed.includes(s)), 'drained with every hit stored before the fetch').toBe(true);
        };
        for (const step of steps) {
          server.publish(step.publish, step.interleaved);
          lose = step.lose;
          await fetchOnce(step.max);
        }
        // Quiet: fetches without losses drain the feed.
        lose = 0;
        for (let i = 0; i < server.stored.length + 2; i++) await fetchOnce(5);
        expect(handed).toEqual(server.stored.filter((s) => s > after));
      }),
      { numRuns: 200 },
    );
  });
});
