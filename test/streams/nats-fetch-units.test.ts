// The NATS input's fetch loop against a scripted pull consumer: messages become a unit as they arrive,
// not when the fetch fills or expires, and every message fetched and not yet settled is kept alive
// (`working()`) while it waits, so a daemon sharing the consumer never gets it redelivered meanwhile.
// (Found by CI: with a 1 s ack wait, the last messages of a stream waited 1 s for their fetch to expire,
// timed out, and the other daemon processed them too.)
import type { JsMsg } from '@nats-io/jetstream';
import { describe, expect, it } from 'vitest';
import { openMemoryStateStore } from '../../state/index.js';
import type { InputUnit } from '../../streams/input-unit.js';
import { fetchUnits } from '../../streams/sources/nats-source.js';
import type { Consumer, NatsSourceConfig } from '../../streams/sources/nats-source.js';
import { flush, SimulatedClock, testContext } from './support.js';

interface FakeMsg {
  readonly seq: number;
  readonly calls: string[];
}

function message(seq: number, text: string): FakeMsg & JsMsg {
  const calls: string[] = [];
  const m = { seq, calls, string: () => text, ack: () => void calls.push('ack'), nak: () => void calls.push('nak'), working: () => void calls.push('working') };
  return m as unknown as FakeMsg & JsMsg;
}

/** One fetch that hands out what the test pushes and ends only when told (as a pull waiting to expire). */
class ScriptedFetch {
  private readonly queue: JsMsg[] = [];
  private wake: (() => void) | undefined;
  private ended = false;
  fetches = 0;
  push(...msgs: JsMsg[]): void {
    this.queue.push(...msgs);
    this.wake?.();
  }
  /** The current fetch ends (expired); the next one waits for messages again. */
  end(): void {
    this.ended = true;
    this.wake?.();
  }
  readonly consumer: Consumer = {
    fetch: () => {
      this.fetches++;
      const self = this;
      return Promise.resolve({
        async *[Symbol.asyncIterator]() {
          for (;;) {
            const m = self.queue.shift();
            if (m !== undefined) yield m;
            else if (self.ended) {
              self.ended = false;
              return;
            }
            else await new Promise<void>((r) => (self.wake = r));
          }
        },
      });
    },
  };
}

describe('NATS input fetch loop', () => {
  it('hands on what arrived before the fetch ends, and keeps fetched messages alive until settled', async () => {
    const clock = new SimulatedClock(0);
    const ctx = testContext(clock);
    const store = await openMemoryStateStore();
    const config: NatsSourceConfig = { url: 'nats://127.0.0.1:4222/events', replay: { from: 'resume' }, fetch_max: 128, max_ack_pending: 100, ack_wait_ms: 1_000, stream_ids: false };
    const fetch = new ScriptedFetch();
    const units: (InputUnit & { admitted?: () => void })[] = [];
    const sub = fetchUnits(fetch.consumer, () => Promise.resolve(0), 'nats:s:c', config, ctx, store, ctx.log).subscribe((u) => void units.push(u as InputUnit & { admitted?: () => void }));
    const a = message(1, '{"n":1}');
    const b = message(2, '{"n":2}');
    fetch.push(a, b);
    await flush();
    // One unit for both, while the fetch is still waiting for more.
    expect(units.map((u) => u.lines)).toEqual([['{"n":1}', '{"n":2}']]);
    expect(fetch.fetches).toBe(1);
    // A message arriving while the first unit waits for admission is kept alive too.
    const c = message(3, '{"n":3}');
    fetch.push(c);
    await flush();
    expect(units).toHaveLength(1);
    await clock.advance(333);
    for (const m of [a, b, c]) expect(m.calls).toEqual(['working']);
    units[0]?.admitted?.();
    await flush();
    expect(units.map((u) => u.lines)).toEqual([['{"n":1}', '{"n":2}'], ['{"n":3}']]);
    units[0]?.settle?.({ ok: true, accepted: 2, parseErrors: 0 });
    await clock.advance(333);
    expect(a.calls).toEqual(['working', 'ack']);
    expect(c.calls).toEqual(['working', 'working']);
    // A redelivery of a message still in flight is ignored; the next fetch starts once all was admitted.
    fetch.push(message(3, '{"n":3}'));
    fetch.end();
    await flush();
    expect(units).toHaveLength(2);
    expect(fetch.fetches).toBe(1);
    units[1]?.admitted?.();
    await flush();
    expect(fetch.fetches).toBe(2);
    sub.unsubscribe();
  });
});
