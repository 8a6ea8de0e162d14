// The digest of the code a compiled-rule cache entry was built by (its key includes it). Inside the bundle
// that is every `.js`/`.cjs` file of dist/bin, ≈ 8.5 MB: the build hashes them once and writes the digest
// beside them (BUILD_DIGEST_FILE), so a start reads 32 bytes instead of hashing the bundle in every thread.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const BUILD_DIGEST_FILE = 'code-digest';

export const isBundleCode = (name: string): boolean => /\.c?js$/.test(name);

/** SHA-256 over the names and bytes of the files under `dir` that `keep` accepts, in name order. */
export function digestOfTree(dir: string, keep: (name: string) => boolean): Buffer {
  const hash = createHash('sha256');
  const walk = (at: string): void => {
    for (const entry of readdirSync(at, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const path = join(at, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (keep(entry.name)) hash.update(entry.name).update(readFileSync(path));
    }
  };
  walk(dir);
  return hash.digest();
}

/** The bundle's digest as the build wrote it, or a fresh one when the file is absent or not a digest. */
export function bundleDigest(dir: string): Buffer {
  try {
    const written = readFileSync(join(dir, BUILD_DIGEST_FILE));
    if (written.length === 32) return written;
  } catch {
    // Not written (a bundle copied by hand): hash it here.
  }
  return digestOfTree(dir, isBundleCode);
}
