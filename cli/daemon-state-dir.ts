// Notices the state directory deleted or replaced under a running daemon. LMDB goes on working in the
// unlinked file (commits and snapshots succeed, nothing errors), so without this check a daemon would
// journal into a file that is gone at exit while /readyz said ready. Checked every STATE_DIR_CHECK_MS
// (one stat); the finding is logged once per change and turns /readyz to 503 until the file is back.
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Clock } from '../streams/index.js';

export const STATE_DIR_CHECK_MS = 2000;
/** The file LMDB keeps the environment in, inside the state directory. */
const DATA_FILE = 'data.mdb';

/** Which file a path names: device and inode, or undefined when there is none. */
export type FileIdentity = { readonly dev: number; readonly ino: number } | undefined;

export interface StateDirWatch {
  /** Why the state directory no longer holds the open state, or undefined while it does. */
  problem(): string | undefined;
  stop(): void;
}

export interface StateDirWatchDeps {
  readonly clock: Clock;
  readonly log: Logger;
  /** Tests pass a fake. */
  readonly identify?: (path: string) => Promise<FileIdentity>;
}

const identifyFile = (path: string): Promise<FileIdentity> =>
  stat(path).then(
    (s) => ({ dev: s.dev, ino: s.ino }),
    () => undefined,
  );

/** Starts checking that `dir`'s data file is still the one the store opened. */
export async function watchStateDir(dir: string, deps: StateDirWatchDeps): Promise<StateDirWatch> {
  const identify = deps.identify ?? identifyFile;
  const file = join(dir, DATA_FILE);
  const opened = await identify(file);
  let problem: string | undefined;
  let cancel: (() => void) | undefined;
  let stopped = false;
  const check = async (): Promise<void> => {
    const now = await identify(file);
    if (stopped) return;
    const next =
      now === undefined
        ? `${file} was deleted under the running daemon`
        : opened === undefined || now.dev !== opened.dev || now.ino !== opened.ino
          ? `${file} was replaced under the running daemon`
          : undefined;
    if (next !== undefined && problem === undefined) {
      deps.log.error({ dir, problem: next }, 'state directory lost: state is written to a file that is gone at exit; restart the daemon (it recovers from what the directory holds then)');
    } else if (next === undefined && problem !== undefined) {
      deps.log.info({ dir }, 'state directory back');
    }
    problem = next;
    schedule();
  };
  const schedule = (): void => {
    cancel = deps.clock.setTimer(() => void check(), STATE_DIR_CHECK_MS);
  };
  if (opened !== undefined) schedule();
  return {
    problem: () => problem,
    stop() {
      stopped = true;
      cancel?.();
    },
  };
}
