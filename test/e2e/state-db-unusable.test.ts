// An unusable --state-db exits 3 with one `sigmad:` line naming the flag and what is wrong, before
// LMDB touches it: a SQLite file (LMDB used to crash on it with SIGSEGV and leave a `-lock` file), a
// path under a file, a directory of a newer state format.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { LmdbBackend } from '../../state/lmdb-backend.js';
import { packValue } from '../../state/value-codec.js';
import { ensureBuilt, FIXTURES, startDaemon, tempDir } from './harness.js';

beforeAll(ensureBuilt, 180_000);

async function refused(stateDb: string): Promise<string> {
  const daemon = await startDaemon(['--rules', join(FIXTURES, 'rules'), '--api-addr', '127.0.0.1:0', '--state-db', stateDb], { noWait: true });
  expect(await daemon.exited).toBe(3);
  const lines = daemon.logs.filter((l) => l.trim() !== '');
  expect(lines.filter((l) => l.startsWith('sigmad: '))).toHaveLength(1);
  expect(lines.join('\n')).not.toMatch(/"stack"|\n\s+at /);
  return lines.at(-1) ?? '';
}

describe('an unusable --state-db', () => {
  it('refuses a SQLite file and leaves it and its directory as they were', async () => {
    const dir = tempDir('statedb');
    const file = join(dir, 'state.sqlite');
    const bytes = Buffer.concat([Buffer.from('SQLite format 3\0'), Buffer.alloc(4080, 7)]);
    writeFileSync(file, bytes);
    expect(await refused(file)).toBe(`sigmad: --state-db (daemon.state.db) ${file}: is a SQLite database file, not a state directory (sigmad keeps its state in an LMDB directory: give a new or empty directory)`);
    expect(readdirSync(dir)).toEqual(['state.sqlite']);
    expect(readFileSync(file).equals(bytes)).toBe(true);
  });

  it('refuses a path under a file without creating anything', async () => {
    const dir = tempDir('statedb');
    writeFileSync(join(dir, 'plain'), 'x');
    expect(await refused(join(dir, 'plain', 'state'))).toMatch(/^sigmad: --state-db \(daemon\.state\.db\) .*plain\/state: cannot be created: .*plain is not a directory$/);
    expect(readdirSync(dir)).toEqual(['plain']);
  });

  it('refuses a directory of a newer state format and leaves its data file unchanged', async () => {
    const state = join(tempDir('statedb'), 'state');
    const lmdb = new LmdbBackend(state);
    await lmdb.write((w) => w.put('meta', 'format', packValue({ version: 99 })));
    await lmdb.close();
    const before = readFileSync(join(state, 'data.mdb'));
    expect(await refused(state)).toMatch(/^sigmad: --state-db \(daemon\.state\.db\) .*state: the state directory has format 99; this sigmad reads formats 2 and 3/);
    expect(readFileSync(join(state, 'data.mdb')).equals(before)).toBe(true);
  });
});
