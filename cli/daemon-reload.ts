// Drives the reload machine: triggers in, a timer armed for the debounce deadline, one reload run
// when the machine enters `running`, its outcome sent back.
import { dirname } from 'node:path';
import { stat } from 'node:fs/promises';
import type { Logger } from 'pino';
import { createActor } from 'xstate';
import { reloadMachine } from '../actors/index.js';
import type { ReloadTrigger } from '../actors/index.js';
import type { Clock } from '../streams/index.js';
import { RULE_FILE } from './rule-files.js';
import { watchDirectory } from './watch-directory.js';
import type { DirectoryWatchDeps } from './watch-directory.js';

export interface ReloadController {
  trigger(source: ReloadTrigger): 'triggered' | 'already_pending';
  stop(): void;
}

export function createReloadController(clock: Clock, run: () => Promise<boolean>, log: Logger): ReloadController {
  const actor = createActor(reloadMachine);
  let cancelTimer: (() => void) | undefined;
  let started = 0;
  actor.subscribe((snap) => {
    if (snap.matches('debouncing') && cancelTimer === undefined) {
      cancelTimer = clock.setTimer(() => {
        cancelTimer = undefined;
        actor.send({ type: 'tick', now: clock.now() });
      }, Math.max(0, snap.context.deadline - clock.now()));
    }
    if (snap.matches('running') && snap.context.started > started) {
      started = snap.context.started;
      void run()
        .catch((error: unknown) => {
          log.error({ err: error }, 'reload crashed');
          return false;
        })
        .then((ok) => actor.send({ type: 'finished', at: clock.now(), ok }));
    }
  });
  actor.start();
  return {
    trigger(source) {
      const snap = actor.getSnapshot();
      if (snap.matches('debouncing') || (snap.matches('running') && snap.context.pending)) return 'already_pending';
      actor.send({ type: 'trigger', at: clock.now(), source });
      return 'triggered';
    },
    stop() {
      cancelTimer?.();
      actor.stop();
    },
  };
}

/** The watchers of the rules and file pipelines (watchRuleFiles). */
export interface DaemonFileWatch {
  /** Also watch these files (each through its directory), once they are known. */
  add(files: readonly string[]): Promise<void>;
  /** Where changes go from now on; changes reported before, if any, trigger it at once. */
  bind(onChange: () => void): void;
  stop(): Promise<void>;
}

/**
 * Watches the rules (a directory recursively, or a file's directory) and, once added, file pipelines; any
 * `.yml`/`.yaml` change triggers a reload, and so does a watched directory coming back after its
 * deletion (`watchDirectory`). Watcher failure only disables reload-on-change. Started before the rest
 * of start-up and awaited after it: the watcher crawls the rule tree on its own thread (≈ 20 ms for the
 * bundled corpus, all of it waiting on the main thread when awaited at once), and a change it reports
 * before the reload controller exists is passed on when it is bound. The rules are subscribed once `after`
 * settles (start-up's read of the cache entry ahead, which needs the same core).
 */
export function watchRuleFiles(rulesPath: string, deps: DirectoryWatchDeps, after?: Promise<unknown>): DaemonFileWatch {
  const stops: (() => Promise<void>)[] = [];
  let onChange: (() => void) | undefined;
  let missed = false;
  const changed = (): void => {
    if (onChange === undefined) missed = true;
    else onChange();
  };
  const watch = async (dir: string, accept: (path: string) => boolean): Promise<void> => {
    try {
      stops.push(await watchDirectory(dir, {
        events: (events) => {
          if (events.some((e) => accept(e.path))) changed();
        },
        restored: changed,
      }, deps));
    } catch (error) {
      deps.log.warn({ err: error, dir }, 'file watcher unavailable; reload on change disabled');
    }
  };
  const rules = Promise.resolve(after)
    .then(() => stat(rulesPath), () => stat(rulesPath))
    .catch(() => undefined)
    .then((info) => watch(info?.isDirectory() === true ? rulesPath : dirname(rulesPath), (p) => RULE_FILE.test(p)));
  // Every subscription asked for so far: stop waits for them, so that none outlives it.
  let asked: Promise<unknown> = rules;
  return {
    add(files) {
      const added = rules.then(async () => {
        for (const file of files) await watch(dirname(file), (p) => p === file);
      });
      asked = Promise.all([asked, added]);
      return added;
    },
    bind(next) {
      onChange = next;
      if (missed) next();
    },
    async stop() {
      await asked;
      await Promise.all(stops.map((stop) => stop()));
    },
  };
}
