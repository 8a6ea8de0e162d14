// Bundles what tsc emitted into dist/bin (issue 19 §2/§3: module loading was most of the time from spawn to
// the first rule read: ≈ 1,300 ES modules, half of them typebox's). One file for the `sigmad` CLI and one per
// worker script, all in ONE directory: the code finds its workers with `new URL('./detect-worker.js',
// import.meta.url)`, and the web console at `../ui` (dist/ui), exactly as from dist/cli and dist/streams/detect.
// Features only some configurations use are `import()`ed, so they become files of their own
// (`<entry>-<name>-<hash>.cjs`) loaded when configured. Packages that load native or wasm files by path stay
// external and are resolved from node_modules at run time.
// The bundle is CommonJS (`X.cjs`), so that it can run through `vm.Script` with V8's code cache, which
// Node 20 offers for no ES module: each `X.js` the code and `package.json` name is a launcher that runs
// `X.cjs` with cli/bundle-loader.ts (copied in as bundle-loader.js). The caches (`X.cjs.cache`) are made
// by running the bundle (train-code-cache.ts), and last the bundled profile's compiled-rule cache entry
// (bundled-rule-entry.ts).
// Run after tsc: `node dist/scripts/build/bundle.js` (the last step of `npm run build`).
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'rolldown';
import { BUILD_DIGEST_FILE, digestOfTree, isBundleCode } from '../../streams/detect/code-digest.js';
import { makeBundledRuleEntry } from './bundled-rule-entry.js';
import { trainCodeCache } from './train-code-cache.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const DIST = join(ROOT, 'dist');
const BUNDLE_DIR = join(DIST, 'bin');

/** Entry name → tsc output; the names are the launchers' file names the code's `new URL(...)`s ask for. */
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

/**
 * One rolldown build per entry, so each entry is ONE file: a call between two of its modules is a plain
 * call, where shared chunks made it a read through a getter of the other chunk's `exports` (CommonJS output).
 * What an entry `import()`s stays a file of its own (`<entry>-<name>-<hash>.cjs`, required on first use), so
 * features only some configurations use stay off the start-up path. Each build has its own module graph,
 * so no module is ever instantiated twice in one thread.
 */
async function bundle(): Promise<void> {
  rmSync(BUNDLE_DIR, { recursive: true, force: true });
  for (const [name, file] of Object.entries(ENTRIES)) {
    await build({
      input: { [name]: join(DIST, file) },
      platform: 'node',
      external: isExternal,
      logLevel: 'warn',
      output: {
        dir: BUNDLE_DIR,
        format: 'cjs',
        entryFileNames: '[name].cjs',
        chunkFileNames: `${name}-[name]-[hash].cjs`,
        sourcemap: false,
        // ASCII only (non-ASCII escaped, doc comments dropped): V8 then holds the ≈ 3 MB source as a
        // one-byte string, not a two-byte one twice its size, and decoding it from UTF-8 is a copy.
        charset: 'ascii',
        comments: { legal: true, annotation: true, jsdoc: false },
      },
    });
  }
}

/** The loader beside the bundle (it imports only node built-ins), and a launcher per entry. */
function writeLaunchers(): void {
  const loader = readFileSync(join(DIST, 'cli/bundle-loader.js'), 'utf8').replace(/\n\/\/# sourceMappingURL=.*$/, '\n');
  writeFileSync(join(BUNDLE_DIR, 'bundle-loader.js'), loader);
  for (const name of Object.keys(ENTRIES)) {
    const launcher = [
      '#!/usr/bin/env node',
      `// Runs ${name}.cjs, the bundle, with its V8 code cache (cli/bundle-loader.ts; written by scripts/build/bundle.ts).`,
      "import { runBundle } from './bundle-loader.js';",
      `runBundle(import.meta.url, '${name}.cjs');`,
      '',
    ].join('\n');
    writeFileSync(join(BUNDLE_DIR, `${name}.js`), launcher, { mode: 0o755 });
  }
}

await bundle();
writeLaunchers();
// The compiled-rule cache keys entries by this digest of the code (streams/detect/code-digest.ts).
writeFileSync(join(BUNDLE_DIR, BUILD_DIGEST_FILE), digestOfTree(BUNDLE_DIR, isBundleCode));
await trainCodeCache(ROOT);
await makeBundledRuleEntry(ROOT);
