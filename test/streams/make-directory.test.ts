// `makeDirectory` is `mkdir -p` that ends when the working directory was deleted (Node 20's recursive
// mkdir spins in native code there, which hung a daemon whose directory was removed under it).
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeDirectory } from '../../streams/index.js';

const home = process.cwd();
const made: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sigmad-mkdir-'));
  made.push(dir);
  return dir;
}
afterEach(() => {
  process.chdir(home);
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('makeDirectory', () => {
  it('creates the missing ancestors and accepts a directory that exists', () => {
    const root = tempDir();
    const deep = join(root, 'a', 'b', 'c');
    makeDirectory(deep);
    makeDirectory(deep);
    expect(statSync(deep).isDirectory()).toBe(true);
  });

  it('refuses a file where a directory belongs', () => {
    const root = tempDir();
    writeFileSync(join(root, 'file'), '');
    expect(() => makeDirectory(join(root, 'file'))).toThrow(/EEXIST|ENOTDIR/);
    expect(() => makeDirectory(join(root, 'file', 'below'))).toThrow(/ENOTDIR/);
  });

  it('fails with ENOENT on a relative path once the working directory is deleted', () => {
    const root = tempDir();
    process.chdir(root);
    rmSync(root, { recursive: true });
    expect(() => makeDirectory(join('data', 'rule-cache'))).toThrow(/ENOENT/);
  });
});
