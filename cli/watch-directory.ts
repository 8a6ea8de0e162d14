// A recursive directory watch (@parcel/watcher) that outlives the directory: when the watched root is
// deleted, its subscription (now on a dead inode, it would never report again) is dropped with one
// warning and the root is looked for every ROOT_POLL_MS; once it is back it is watched again and the
// owner told, since anything under it may have changed meanwhile.
import { stat } from 'node:fs/promises';
import watcher from '@parcel/watcher';
import type { Logger } from 'pino';
import type { Clock } from '../streams/index.js';

export type WatchEvent = watcher.Event;

/** How often a deleted watched root is looked for again: a stat, no loop. */
export const ROOT_POLL_MS = 2000;

export interface DirectoryWatchHandlers {
  /** A batch of changes under the root (the root's own deletion included). */
  events(events: readonly WatchEvent[]): void;
  /** The root was deleted and is back, watched again. */
  restored(): void;
}

export interface DirectoryWatchDeps {
  readonly clock: Clock;
  readonly log: Logger;
  /** `@parcel/watcher`'s subscribe (tests pass a fake). */
  readonly subscribe?: (dir: string, fn: (err: Error | null, events: WatchEvent[]) => unknown) => Promise<{ unsubscribe(): Promise<void> }>;
  /** Whether `dir` is a directory now. */
  readonly exists?: (dir: string) => Promise<boolean>;
}

const isDirectory = (dir: string): Promise<boolean> =>
  stat(dir).then(
    (s) => s.isDirectory(),
    () => false,
  );

/** Watches `dir`; the first subscription's failure throws. Resolves with the function that stops it. */
export async function watchDirectory(dir: string, handlers: DirectoryWatchHandlers, deps: DirectoryWatchDeps): Promise<() => Promise<void>> {
  const subscribe = deps.subscribe ?? ((d, fn) => watcher.subscribe(d, fn));
  const exists = deps.exists ?? isDirectory;
  let sub: { unsubscribe(): Promise<void> } | undefined;
  let cancelPoll: (() => void) | undefined;
  let closed = false;

  const lost = (): void => {
    const dead = sub;
    if (closed || dead === undefined) return;
    sub = undefined;
    void dead.unsubscribe().catch(() => undefined);
    deps.log.warn({ dir, retryMs: ROOT_POLL_MS }, 'watched directory deleted; watching again once it is back');
    poll();
  };
  const poll = (): void => {
    cancelPoll = deps.clock.setTimer(() => {
      cancelPoll = undefined;
      void exists(dir).then(async (back) => {
        if (closed) return;
        if (back && (await start().then(() => true, () => false))) {
          if (closed) return;
          deps.log.info({ dir }, 'watched directory is back; watching it again');
          handlers.restored();
        } else poll();
      });
    }, ROOT_POLL_MS);
  };
  const start = async (): Promise<void> => {
    // The watcher may call back before `subscribe` resolves; those calls belong to this subscription.
    let next: Awaited<ReturnType<typeof subscribe>> | undefined;
    next = await subscribe(dir, (err, events) => {
      if (next !== undefined && next !== sub) return;
      if (err !== null) {
        deps.log.warn({ err, dir }, 'file watcher error');
        void exists(dir).then((present) => present || lost());
        return;
      }
      handlers.events(events);
      if (events.some((e) => e.path === dir && e.type === 'delete')) lost();
    });
    if (closed) return next.unsubscribe();
    sub = next;
  };
  await start();
  return async () => {
    closed = true;
    cancelPoll?.();
    const last = sub;
    sub = undefined;
    await last?.unsubscribe();
  };
}
