import { accessSync, closeSync, constants, openSync, readSync, statfsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * Checks a state directory before LMDB opens it. LMDB given a file of another format crashes the
 * process (SIGSEGV) and leaves a `-lock` file beside it, so everything that can be wrong is found
 * here first, by reading only: nothing is created or changed when a problem is found.
 */

/** The file system calls the probe makes (tests pass a fake to play a full disk). */
export interface ProbeFs {
  /** `isDirectory` of the entry, or undefined when it does not exist. */
  kind(path: string): 'directory' | 'file' | undefined;
  /** Throws when the process may not read and write (and enter) `path`. */
  checkAccess(path: string): void;
  /** Bytes available to this process on the device holding `path`. */
  freeBytes(path: string): number;
  /** Up to `n` leading bytes of a file. */
  head(path: string, n: number): Uint8Array;
}

/** What the state directory holds, when it is ours. */
const LMDB_DATA_FILE = 'data.mdb';
const LMDB_LOCK_FILE = 'lock.mdb';
/** An LMDB data file carries its magic number 0xBEEFC0DE (little-endian) in the first meta page. */
const LMDB_MAGIC_OFFSET = 24;
const LMDB_MAGIC = [0xde, 0xc0, 0xef, 0xbe];
const SQLITE_HEADER = 'SQLite format 3\0';
/** Less free space than this and the first commits would fail: refuse at start-up instead. */
export const MIN_FREE_BYTES = 1_048_576;

/** A `--state-db` location that cannot hold the state; the message says why. */
export class StateDirError extends Error {
  override readonly name = 'StateDirError';
}

/** The problem with `path` as a state directory, in a few words, or undefined when it is usable. */
export function probeStateDir(path: string, fs: ProbeFs = nodeProbeFs): string | undefined {
  const kind = fs.kind(path);
  if (kind === 'file') {
    const what = startsWith(fs.head(path, SQLITE_HEADER.length), SQLITE_HEADER) ? 'a SQLite database file' : 'a file';
    return `is ${what}, not a state directory (sigmad keeps its state in an LMDB directory: give a new or empty directory)`;
  }
  // A directory to be created: its nearest existing ancestor must take it.
  let existing = path;
  while (kind === undefined && fs.kind(existing) === undefined && dirname(existing) !== existing) existing = dirname(existing);
  if (fs.kind(existing) !== 'directory') return `cannot be created: ${existing} is not a directory`;
  const denied = accessProblem(fs, existing);
  if (denied !== undefined) return `${existing === path ? 'is not usable' : `cannot be created in ${existing}`}: ${denied}`;
  if (kind === 'directory') {
    for (const name of [LMDB_DATA_FILE, LMDB_LOCK_FILE]) {
      const file = join(path, name);
      const k = fs.kind(file);
      if (k === 'directory') return `holds a directory ${name} where the state file belongs`;
      if (k === undefined) continue;
      const problem = accessProblem(fs, file);
      if (problem !== undefined) return `cannot use ${name}: ${problem}`;
    }
    const data = join(path, LMDB_DATA_FILE);
    if (fs.kind(data) === 'file') {
      const head = fs.head(data, LMDB_MAGIC_OFFSET + LMDB_MAGIC.length);
      if (head.length > 0 && !LMDB_MAGIC.every((b, i) => head[LMDB_MAGIC_OFFSET + i] === b)) {
        return `holds a ${LMDB_DATA_FILE} that is not an LMDB data file`;
      }
    }
  }
  const free = fs.freeBytes(existing);
  if (free < MIN_FREE_BYTES) return `no space left on its device (${free} bytes free, at least ${MIN_FREE_BYTES} needed)`;
  return undefined;
}

function accessProblem(fs: ProbeFs, path: string): string | undefined {
  try {
    fs.checkAccess(path);
    return undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'EROFS' ? 'read-only file system' : `no permission to read and write (${code ?? String(error)})`;
  }
}

function startsWith(bytes: Uint8Array, text: string): boolean {
  return bytes.length >= text.length && [...text].every((c, i) => bytes[i] === c.charCodeAt(0));
}

export const nodeProbeFs: ProbeFs = {
  kind(path) {
    try {
      return statSync(path).isDirectory() ? 'directory' : 'file';
    } catch {
      return undefined;
    }
  },
  checkAccess(path) {
    const isDir = statSync(path).isDirectory();
    accessSync(path, constants.R_OK | constants.W_OK | (isDir ? constants.X_OK : 0));
  },
  freeBytes(path) {
    const s = statfsSync(path);
    return s.bavail * s.bsize;
  },
  head(path, n) {
    let fd: number;
    try {
      fd = openSync(path, 'r');
    } catch {
      // Unreadable: the access check names that.
      return new Uint8Array(0);
    }
    try {
      const buf = new Uint8Array(n);
      return buf.subarray(0, readSync(fd, buf, 0, n, 0));
    } finally {
      closeSync(fd);
    }
  },
};
