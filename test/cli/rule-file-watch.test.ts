// The daemon's file watch (watchRuleFiles) is subscribed before the reload controller exists: a change
// reported in between must reach the controller once it is bound, and only rule files and the added
// pipeline files count.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { watchRuleFiles } from '../../cli/daemon-reload.js';
import type { WatchEvent } from '../../cli/watch-directory.js';
import { SimulatedClock } from '../streams/support.js';

type Listener = (err: Error | null, events: WatchEvent[]) => unknown;

/** A fake @parcel/watcher: the listener of each subscribed directory, and what is still subscribed. */
function fakeWatcher() {
  const listeners = new Map<string, Listener>();
  return {
    listeners,
    subscribe: (dir: string, fn: Listener) => {
      listeners.set(dir, fn);
      return Promise.resolve({ unsubscribe: () => Promise.resolve(void listeners.delete(dir)) });
    },
    exists: () => Promise.resolve(true),
    change: (dir: string, path: string) => listeners.get(dir)?.(null, [{ type: 'update', path }]),
  };
}

describe('watchRuleFiles', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const rulesDir = (): string => {
    const dir = mkdtempSync(join(tmpdir(), 'sigmad-watch-'));
    dirs.push(dir);
    return dir;
  };

  it('passes on a change reported before it was bound, once, and later changes as they come', async () => {
    const rules = rulesDir();
    const fake = fakeWatcher();
    const files = watchRuleFiles(rules, { clock: new SimulatedClock(), log: pino({ level: 'silent' }), subscribe: fake.subscribe, exists: fake.exists });
    await files.add([]);
    fake.change(rules, join(rules, 'a.yml'));
    fake.change(rules, join(rules, 'b.yml'));
    let changes = 0;
    files.bind(() => void changes++);
    expect(changes).toBe(1);
    fake.change(rules, join(rules, 'c.yaml'));
    expect(changes).toBe(2);
    await files.stop();
    expect(fake.listeners.size).toBe(0);
  });

  it('binds without a change when none came, and ignores files that are neither rules nor added pipelines', async () => {
    const rules = rulesDir();
    const other = rulesDir();
    const fake = fakeWatcher();
    const files = watchRuleFiles(rules, { clock: new SimulatedClock(), log: pino({ level: 'silent' }), subscribe: fake.subscribe, exists: fake.exists });
    const pipeline = join(other, 'pipeline.yml');
    await files.add([pipeline]);
    let changes = 0;
    files.bind(() => void changes++);
    fake.change(rules, join(rules, 'notes.txt'));
    fake.change(other, join(other, 'another.yml'));
    expect(changes).toBe(0);
    fake.change(other, pipeline);
    expect(changes).toBe(1);
    await files.stop();
    expect(fake.listeners.size).toBe(0);
  });

  it('subscribes the rules only once `after` settled, also when it failed', async () => {
    for (const outcome of ['resolve', 'reject'] as const) {
      const rules = rulesDir();
      const fake = fakeWatcher();
      let settle: () => void = () => undefined;
      const after = new Promise<void>((resolve, reject) => (settle = outcome === 'resolve' ? resolve : () => reject(new Error('read failed'))));
      const deps = { clock: new SimulatedClock(), log: pino({ level: 'silent' }), subscribe: fake.subscribe, exists: fake.exists };
      const files = watchRuleFiles(rules, deps, after);
      // A watch started after it without a gate has subscribed: the gated one has not.
      const control = rulesDir();
      const ungated = watchRuleFiles(control, deps);
      await ungated.add([]);
      expect([...fake.listeners.keys()]).toEqual([control]);
      settle();
      await files.add([]);
      expect([...fake.listeners.keys()].sort()).toEqual([control, rules].sort());
      await Promise.all([files.stop(), ungated.stop()]);
    }
  });

  it('stops the watches still being subscribed when stopped', async () => {
    const rules = rulesDir();
    const other = rulesDir();
    const fake = fakeWatcher();
    const files = watchRuleFiles(rules, { clock: new SimulatedClock(), log: pino({ level: 'silent' }), subscribe: fake.subscribe, exists: fake.exists });
    const adding = files.add([join(other, 'pipeline.yml')]);
    await files.stop();
    await adding;
    expect(fake.listeners.size).toBe(0);
  });
});
