// Bundles what tsc emitted into dist/bin (issue 19 §2/§3: module loading was most of the time from spawn to
// the first rule read: ≈ 1,300 ES modules, half of them typebox's). One entry for the `sigmad` CLI and one
// per worker script, all in ONE directory with their shared chunks: the code finds its workers with
// `new URL('./detect-worker.js', import.meta.url)`, and the web console at `../ui` (dist/ui), exactly as
// from dist/cli and dist/streams/detect. Features only some configurations use are `import()`ed, so
// they become chunks loaded when configured. Packages that load native or wasm files by path stay
// external and are resolved from node_modules at run time.
// Run after tsc: `node dist/scripts/build/bundle.js` (the last step of `npm run build`).
import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'rolldown';

const ROOT = resolve(import.meta.dirname, '../../..');
const DIST = join(ROOT, 'dist');
const BUNDLE_DIR = join(DIST, 'bin');

/** Entry name → tsc output; the names are the file names the code's `new URL(...)`s ask for. */
const ENTRIES: Record<string, string> = {
  sigmad: 'cli/main.js',
  'detect-worker': 'streams/detect/detect-worker.js',
  'chunk-worker': 'streams/detect/chunk-worker.js',
  'entry-worker': 'streams/detect/entry-worker.js',
};

/**
 * Packages that open a `.node` or `.wasm` file next to their own code, and msgpackr, which lmdb loads
 * from node_modules anyway (one copy). undici is not here: streams/egress/undici.ts requires it at run time.
 */
const EXTERNAL_PACKAGES = ['lmdb', 'uWebSockets.js', '@parcel/watcher', 're2-wasm', 'jq-wasm', 'msgpackr-extract', 'msgpackr'];

function isExternal(id: string): boolean {
  return EXTERNAL_PACKAGES.some((p) => id === p || id.startsWith(`${p}/`));
}

async function bundle(): Promise<void> {
  rmSync(BUNDLE_DIR, { recursive: true, force: true });
  await build({
    input: Object.fromEntries(Object.entries(ENTRIES).map(([name, file]) => [name, join(DIST, file)])),
    platform: 'node',
    external: isExternal,
    logLevel: 'warn',
    output: {
      dir: BUNDLE_DIR,
      format: 'esm',
      entryFileNames: '[name].js',
      chunkFileNames: 'chunk-[name]-[hash].js',
      sourcemap: false,
    },
  });
}

await bundle();
