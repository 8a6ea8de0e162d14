// The compiled-rule cache's code digest: the build's written digest is the one a start would compute, and a
// bundle without it (or with a damaged one) is hashed at start, so an entry never outlives its code.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BUILD_DIGEST_FILE, bundleDigest, digestOfTree, isBundleCode } from '../../streams/detect/code-digest.js';

let dir = '';
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function bundle(files: Record<string, string>): string {
  dir = mkdtempSync(join(tmpdir(), 'sigmad-digest-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

describe('code digest', () => {
  it('covers the names and bytes of the code files only, and a start reads what the build wrote', () => {
    const at = bundle({ 'a.cjs': 'one', 'a.js': 'launcher', 'a.cjs.cache': 'v8 data' });
    const computed = digestOfTree(at, isBundleCode);
    writeFileSync(join(at, 'a.cjs.cache'), 'other v8 data');
    expect(digestOfTree(at, isBundleCode)).toEqual(computed);
    writeFileSync(join(at, 'a.cjs'), 'two');
    const changed = digestOfTree(at, isBundleCode);
    expect(changed).not.toEqual(computed);
    writeFileSync(join(at, BUILD_DIGEST_FILE), changed);
    expect(bundleDigest(at)).toEqual(changed);
  });

  it('hashes the bundle when the written digest is absent or not 32 bytes', () => {
    const at = bundle({ 'a.cjs': 'one' });
    const computed = digestOfTree(at, isBundleCode);
    expect(bundleDigest(at)).toEqual(computed);
    writeFileSync(join(at, BUILD_DIGEST_FILE), 'short');
    expect(bundleDigest(at)).toEqual(computed);
  });
});
