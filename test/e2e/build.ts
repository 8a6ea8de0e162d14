// Building dist/ for the tests (tsc, the web console, the bundle) when it is older than the sources: once
// per run from vitest's global setup (test/setup/build.ts), and from each e2e file's beforeAll, where a lock
// directory serialises parallel files that find it stale. Free of vitest, so the global setup can load it.
import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

export const ROOT = resolve(import.meta.dirname, '../..');
/** The bundled CLI (scripts/build/bundle.ts): what ships, so what the tests run. */
export const MAIN = join(ROOT, 'dist/bin/sigmad.js');
export const FIXTURES = join(ROOT, 'test/fixtures/daemon');
const LOCK = join(ROOT, 'dist/.e2e-build.lock');
const STALE_LOCK_MS = 5 * 60_000;

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return newest;
}

const MARKER = join(ROOT, 'dist/.e2e-built');

function mtime(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

/** When dist/ was last built: tsc may leave unchanged outputs alone, so a marker is written too. */
function builtAt(): number {
  return mtime(MAIN) === 0 ? 0 : Math.max(mtime(MAIN), mtime(MARKER));
}

/** The folders tsc builds (tsconfig.json's include), and the web console's (ui/tsconfig.json). */
const SOURCE_FOLDERS = ['sigma', 'actors', 'state', 'streams', 'protocol', 'http', 'cli', 'scripts', 'ui'];

function isStale(): boolean {
  return builtAt() < Math.max(...SOURCE_FOLDERS.map((f) => newestMtime(join(ROOT, f))));
}

function tryLock(): boolean {
  mkdirSync(join(ROOT, 'dist'), { recursive: true });
  try {
    mkdirSync(LOCK);
    return true;
  } catch {
    try {
      if (Date.now() - statSync(LOCK).mtimeMs > STALE_LOCK_MS) rmSync(LOCK, { recursive: true, force: true });
    } catch {
      // Another process removed it first.
    }
    return false;
  }
}

/** Build (tsc, the console, the bundle) when dist/ is older than the sources; other files wait for the one building. */
export async function ensureBuilt(): Promise<void> {
  const deadline = Date.now() + 170_000;
  while (isStale()) {
    if (tryLock()) {
      try {
        // Type errors in unrelated in-progress files must not stop the emit, so the exit code is ignored.
        await promisify(execFile)('npx', ['tsc', '-p', ROOT], { cwd: ROOT }).catch(() => undefined);
        // The web console the daemon serves at /ui/ (npm run build's last two steps).
        await promisify(execFile)('npx', ['tsc', '-p', join(ROOT, 'ui')], { cwd: ROOT }).catch(() => undefined);
        await promisify(execFile)(process.execPath, [join(ROOT, 'dist/scripts/build-ui.js')], { cwd: ROOT }).catch(() => undefined);
        // npm run build's bundle step: dist/bin, the CLI and worker scripts the tests spawn.
        await promisify(execFile)(process.execPath, [join(ROOT, 'dist/scripts/build/bundle.js')], { cwd: ROOT }).catch(() => undefined);
        writeFileSync(MARKER, String(Date.now()));
      } finally {
        rmSync(LOCK, { recursive: true, force: true });
      }
      return;
    }
    if (Date.now() > deadline) throw new Error('timed out waiting for another e2e build');
    await new Promise((r) => setTimeout(r, 250));
  }
}
