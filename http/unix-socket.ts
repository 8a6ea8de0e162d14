import type { Stats } from 'node:fs';
import { chmod, lstat, unlink } from 'node:fs/promises';
import { connect } from 'node:net';

/**
 * Before binding a unix socket: a live listener at the path is an error; a stale socket file
 * (nobody answers) is removed, since a crash leaves it behind. Anything else at the path is an
 * error too: a mistyped address must not delete the operator's file.
 */
export async function prepareUnixSocketPath(path: string): Promise<void> {
  let stats: Stats;
  try {
    stats = await lstat(path);
  } catch {
    return;
  }
  if (!stats.isSocket()) throw new Error(`${path} exists and is not a unix socket`);
  if (await answers(path)) throw new Error(`unix socket ${path} is in use by another process`);
  await unlink(path);
}

/**
 * Run a synchronous bind with a umask that creates the socket file owner-only, so no other user can
 * connect between the bind and `restrictUnixSocket` (both adapters bind before `listen` returns).
 */
export function bindOwnerOnly<T>(bind: () => T): T {
  const previous = process.umask(0o177);
  try {
    return bind();
  } finally {
    process.umask(previous);
  }
}

/** Owner-only access: the API has no authentication, so the file mode is the access control. */
export async function restrictUnixSocket(path: string): Promise<void> {
  await chmod(path, 0o600);
}

export async function removeUnixSocket(path: string): Promise<void> {
  try {
    await unlink(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

function answers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(path);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
