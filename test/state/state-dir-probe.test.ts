import { chmodSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LmdbBackend } from '../../state/lmdb-backend.js';
import { MIN_FREE_BYTES, nodeProbeFs, probeStateDir } from '../../state/state-dir-probe.js';
import type { ProbeFs } from '../../state/state-dir-probe.js';
import { openLmdbStateStore, StateDirError } from '../../state/index.js';
import { useTempDirs } from './support/temp-dirs.js';

describe('state directory probe', () => {
  const tempDir = useTempDirs();

  it('accepts a missing directory, an empty one and one LMDB wrote', async () => {
    const root = tempDir();
    expect(probeStateDir(join(root, 'a', 'b'))).toBeUndefined();
    expect(probeStateDir(root)).toBeUndefined();
    const lmdb = new LmdbBackend(join(root, 'env'));
    await lmdb.write((w) => w.put('meta', 'x', new Uint8Array([1])));
    await lmdb.close();
    expect(probeStateDir(join(root, 'env'))).toBeUndefined();
  });

  it('refuses a SQLite file, any other file, and a path under a file, creating nothing', async () => {
    const root = tempDir();
    const sqlite = join(root, 'state.db');
    writeFileSync(sqlite, Buffer.concat([Buffer.from('SQLite format 3\0'), Buffer.alloc(4080)]));
    writeFileSync(join(root, 'notes.txt'), 'hello');
    expect(probeStateDir(sqlite)).toMatch(/^is a SQLite database file, not a state directory/);
    expect(probeStateDir(join(root, 'notes.txt'))).toMatch(/^is a file, not a state directory/);
    expect(probeStateDir(join(root, 'notes.txt', 'state'))).toMatch(/^cannot be created: .*notes\.txt is not a directory/);
    await expect(openLmdbStateStore(sqlite)).rejects.toBeInstanceOf(StateDirError);
    expect(readdirSync(root).sort()).toEqual(['notes.txt', 'state.db']);
  });

  it('refuses a directory whose data.mdb is not LMDB, or whose data.mdb is a directory', () => {
    const root = tempDir();
    mkdirSync(join(root, 'bad'));
    writeFileSync(join(root, 'bad', 'data.mdb'), 'x'.repeat(4096));
    mkdirSync(join(root, 'odd', 'data.mdb'), { recursive: true });
    expect(probeStateDir(join(root, 'bad'))).toBe('holds a data.mdb that is not an LMDB data file');
    expect(probeStateDir(join(root, 'odd'))).toBe('holds a directory data.mdb where the state file belongs');
  });

  it('refuses a directory it may not write', () => {
    const dir = tempDir();
    const denied: ProbeFs = {
      ...nodeProbeFs,
      checkAccess: () => {
        throw Object.assign(new Error('denied'), { code: 'EACCES' });
      },
    };
    expect(probeStateDir(dir, denied)).toBe('is not usable: no permission to read and write (EACCES)');
    expect(probeStateDir(join(dir, 'new'), denied)).toMatch(/^cannot be created in .*: no permission/);
    // Without root, the real file system says the same.
    chmodSync(dir, 0o500);
    if (process.getuid?.() !== 0) expect(probeStateDir(dir)).toMatch(/no permission/);
    chmodSync(dir, 0o700);
  });

  it('refuses a full disk', () => {
    const full: ProbeFs = { ...nodeProbeFs, freeBytes: () => MIN_FREE_BYTES - 1 };
    expect(probeStateDir(tempDir(), full)).toBe(`no space left on its device (${MIN_FREE_BYTES - 1} bytes free, at least ${MIN_FREE_BYTES} needed)`);
  });
});
