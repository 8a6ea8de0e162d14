// The watched root deleted and created again, against a reference model: a deleted root's dead
// subscription is dropped at once (one warning), the root is looked for exactly every ROOT_POLL_MS (a
// stat per period, never a tight loop), and once it is back it is watched again and `restored` fires
// once. Changes reach `events` only while watched; `stop` leaves no subscription and no timer.
import fc from 'fast-check';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { ROOT_POLL_MS, watchDirectory } from '../../cli/watch-directory.js';
import type { WatchEvent } from '../../cli/watch-directory.js';
import { flush, SimulatedClock } from '../streams/support.js';

const DIR = '/watched/rules';

/** inotify as @parcel/watcher sees it: a subscription dies with the directory it was made on. */
class FakeTree {
  present = true;
  stats = 0;
  private readonly live = new Set<(err: Error | null, events: WatchEvent[]) => unknown>();
  get subscriptions(): number {
    return this.live.size;
  }
  readonly subscribe = (dir: string, fn: (err: Error | null, events: WatchEvent[]) => unknown) => {
    expect(dir).toBe(DIR);
    if (!this.present) return Promise.reject(new Error(`ENOENT: ${dir}`));
    this.live.add(fn);
    return Promise.resolve({ unsubscribe: () => Promise.resolve(void this.live.delete(fn)) });
  };
  readonly exists = () => {
    this.stats++;
    return Promise.resolve(this.present);
  };
  emit(events: WatchEvent[], err: Error | null = null): void {
    for (const fn of [...this.live]) fn(err, events);
  }
  /** The root removed: live subscriptions hear it, then hear nothing ever again. */
  remove(): void {
    this.present = false;
    const hearing = [...this.live];
    this.live.clear();
    for (const fn of hearing) fn(null, [{ path: `${DIR}/a.yml`, type: 'delete' }, { path: DIR, type: 'delete' }]);
  }
}

type Op = { kind: 'change' } | { kind: 'remove' } | { kind: 'create' } | { kind: 'advance'; ms: number };

interface Model {
  present: boolean;
  watching: boolean;
  pollAt: number | undefined;
  now: number;
  events: number;
  restored: number;
  polls: number;
  losses: number;
}

function step(m: Model, op: Op): void {
  switch (op.kind) {
    case 'change':
      if (m.present && m.watching) m.events++;
      return;
    case 'remove':
      if (!m.present) return;
      m.present = false;
      if (!m.watching) return;
      m.events++;
      m.watching = false;
      m.losses++;
      m.pollAt = m.now + ROOT_POLL_MS;
      return;
    case 'create':
      m.present = true;
      return;
    case 'advance': {
      const end = m.now + op.ms;
      while (m.pollAt !== undefined && m.pollAt <= end) {
        m.now = m.pollAt;
        m.polls++;
        if (m.present) {
          m.watching = true;
          m.restored++;
          m.pollAt = undefined;
        } else m.pollAt += ROOT_POLL_MS;
      }
      m.now = end;
    }
  }
}

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.constant<Op>({ kind: 'change' }),
  fc.constant<Op>({ kind: 'remove' }),
  fc.constant<Op>({ kind: 'create' }),
  fc.integer({ min: 1, max: 3 * ROOT_POLL_MS }).map((ms): Op => ({ kind: 'advance', ms })),
);

function setup() {
  const clock = new SimulatedClock(0);
  const tree = new FakeTree();
  const lines: { msg: string }[] = [];
  const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as { msg: string }) });
  const seen = { events: 0, restored: 0 };
  const handlers = { events: () => void seen.events++, restored: () => void seen.restored++ };
  const start = () => watchDirectory(DIR, handlers, { clock, log, subscribe: tree.subscribe, exists: tree.exists });
  return { clock, tree, lines, seen, start };
}

describe('watchDirectory', () => {
  it('follows the model through deletions and re-creations of its root', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 40 }), async (ops) => {
        const t = setup();
        const stop = await t.start();
        const m: Model = { present: true, watching: true, pollAt: undefined, now: 0, events: 0, restored: 0, polls: 0, losses: 0 };
        for (const o of ops) {
          if (o.kind === 'change' && t.tree.present) t.tree.emit([{ path: `${DIR}/a.yml`, type: 'update' }]);
          if (o.kind === 'remove' && t.tree.present) t.tree.remove();
          if (o.kind === 'create') t.tree.present = true;
          if (o.kind === 'advance') await t.clock.advance(o.ms);
          await flush();
          step(m, o);
          expect(t.seen).toEqual({ events: m.events, restored: m.restored });
          expect(t.tree.subscriptions).toBe(m.watching ? 1 : 0);
          expect(t.tree.stats).toBe(m.polls);
          expect(t.lines.filter((l) => l.msg.startsWith('watched directory deleted'))).toHaveLength(m.losses);
        }
        await stop();
        expect(t.tree.subscriptions).toBe(0);
        expect(t.clock.pending).toBe(0);
      }),
      { numRuns: 200 },
    );
  });

  it('takes a watcher error with the root gone as its deletion', async () => {
    const t = setup();
    const stop = await t.start();
    t.tree.present = false;
    t.tree.emit([], new Error('inotify: watch lost'));
    await flush();
    expect(t.tree.subscriptions).toBe(0);
    t.tree.present = true;
    await t.clock.advance(ROOT_POLL_MS);
    expect(t.seen.restored).toBe(1);
    expect(t.tree.subscriptions).toBe(1);
    await stop();
    expect(t.clock.pending).toBe(0);
  });

  it('takes what the watcher reports before its subscription resolves (seen in CI: a TDZ crash at start-up)', async () => {
    const t = setup();
    const early = (dir: string, fn: (err: Error | null, events: WatchEvent[]) => unknown) => {
      fn(null, [{ path: `${dir}/a.yml`, type: 'create' }]);
      return t.tree.subscribe(dir, fn);
    };
    const stop = await watchDirectory(DIR, { events: () => void t.seen.events++, restored: () => undefined }, { clock: t.clock, log: pino({ level: 'silent' }), subscribe: early, exists: t.tree.exists });
    expect(t.seen.events).toBe(1);
    t.tree.emit([{ path: `${DIR}/a.yml`, type: 'update' }]);
    expect(t.seen.events).toBe(2);
    await stop();
    expect(t.tree.subscriptions).toBe(0);
  });
});
