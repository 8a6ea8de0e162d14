// The bundle loader (cli/bundle-loader.ts): a file and the bundle files it requires run once each; a cache
// written after a run is accepted by the next load; a cache that is damaged or made from other source of the
// same length (both of which V8 alone would accept), or under other V8 flags, is ignored and the file runs the same.
// The deferred external packages load on their first use, not when the bundle requires them.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BundleLoader, CACHE_SUFFIX } from '../../cli/bundle-loader.js';

const ROOT = join(import.meta.dirname, '../..');

/** A two-file "bundle": main.cjs requires chunk.cjs (through the loader) and a node built-in. */
function bundleDir(body = 'n * 2'): string {
  const dir = mkdtempSync(join(tmpdir(), 'sigmad-bundle-loader-'));
  writeFileSync(join(dir, 'chunk.cjs'), `exports.twice = (n) => ${body};\nexports.loads = (exports.loads ?? 0) + 1;\n`);
  writeFileSync(
    join(dir, 'main.cjs'),
    "#!/usr/bin/env node\nconst { join } = require('node:path');\nconst chunk = require('./chunk.cjs');\nrequire('./chunk.cjs');\nexports.result = chunk.twice(21);\nexports.file = join(__dirname, 'x') && __filename;\nexports.chunkLoads = chunk.loads;\n",
  );
  return dir;
}

function run(dir: string, mode: 'read' | 'off' | 'write' = 'read'): { exports: Record<string, unknown>; loader: BundleLoader } {
  const loader = new BundleLoader(dir, mode);
  return { exports: loader.run(join(dir, 'main.cjs')) as Record<string, unknown>, loader };
}

describe('the bundle loader', () => {
  it('runs a file and its bundle requires once each, with __filename, and without caches reports them absent', () => {
    const dir = bundleDir();
    const { exports, loader } = run(dir);
    expect(exports).toEqual({ result: 42, file: join(dir, 'main.cjs'), chunkLoads: 1 });
    expect([...loader.outcomes.values()]).toEqual(['absent', 'absent']);
  });

  it('reads a file that is not ASCII as UTF-8 (ASCII files are decoded as latin1), with and without its cache', () => {
    const dir = bundleDir("`${String(n * 2)} \u00a7 \u2026 é…`");
    run(dir, 'write').loader.writeCaches();
    expect(run(dir, 'off').exports['result']).toBe('42 § … é…');
    const warm = run(dir);
    expect(warm.exports['result']).toBe('42 § … é…');
    expect([...warm.loader.outcomes.values()]).toEqual(['accepted', 'accepted']);
  });

  it('accepts the caches it wrote, and off ignores them', () => {
    const dir = bundleDir();
    run(dir, 'write').loader.writeCaches();
    const warm = run(dir);
    expect(warm.exports['result']).toBe(42);
    expect([...warm.loader.outcomes.values()]).toEqual(['accepted', 'accepted']);
    expect([...run(dir, 'off').loader.outcomes.values()]).toEqual(['off', 'off']);
  });

  it('ignores a truncated cache, one made from other source of the same length, and damaged V8 data', () => {
    const dir = bundleDir();
    const { loader } = run(dir, 'write');
    loader.writeCaches();
    const cache = join(dir, `chunk.cjs${CACHE_SUFFIX}`);

    writeFileSync(cache, readFileSync(cache).subarray(0, 20));
    expect(run(dir).loader.outcomes.get(join(dir, 'chunk.cjs'))).toBe('mismatch');

    // Other source, same length: V8 checks only the length, the loader the hash.
    const other = bundleDir('n + n');
    run(other, 'write').loader.writeCaches();
    copyFileSync(join(other, `chunk.cjs${CACHE_SUFFIX}`), cache);
    const foreign = run(dir);
    expect(foreign.loader.outcomes.get(join(dir, 'chunk.cjs'))).toBe('mismatch');
    expect(foreign.exports['result']).toBe(42);

    // Damaged V8 data (which release builds of V8 do not checksum) under an intact header.
    loader.writeCaches();
    const bytes = readFileSync(cache);
    writeFileSync(cache, Buffer.concat([bytes.subarray(0, bytes.length - 64), Buffer.alloc(64, 7)]));
    const damaged = run(dir);
    expect(damaged.loader.outcomes.get(join(dir, 'chunk.cjs'))).toBe('mismatch');
    expect(damaged.exports['result']).toBe(42);
  });

  it('ignores caches made by a node with other V8 flags', () => {
    const dir = bundleDir();
    // tsc's output of the loader (vitest's global setup builds dist/), run by a node under --no-lazy.
    const loaderUrl = pathToFileURL(join(ROOT, 'dist/cli/bundle-loader.js')).href;
    const script = `import { BundleLoader } from ${JSON.stringify(loaderUrl)};
const loader = new BundleLoader(${JSON.stringify(dir)}, 'write');
loader.run(${JSON.stringify(join(dir, 'main.cjs'))});
loader.writeCaches();`;
    execFileSync(process.execPath, ['--no-lazy', '--input-type=module', '-e', script]);
    const { exports, loader } = run(dir);
    expect([...loader.outcomes.values()]).toEqual(['rejected', 'rejected']);
    expect(exports['result']).toBe(42);
  });

  it('loads a deferred package on the first use of its exports, not when the bundle requires it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sigmad-bundle-loader-'));
    const loaded = "() => Object.keys(require.cache).filter((f) => /node_modules[\\\\/](re2-wasm|lmdb)[\\\\/]/.test(f)).map((f) => f.includes('re2-wasm') ? 're2-wasm' : 'lmdb')";
    writeFileSync(
      join(dir, 'main.cjs'),
      `const re2 = require('re2-wasm');\nconst lmdb = require('lmdb');\nconst loaded = ${loaded};\n` +
        "exports.atStart = loaded();\nexports.match = new re2.RE2('(a+)+$', 'u').test('aaa');\nexports.afterUse = [...new Set(loaded())];\nexports.open = typeof lmdb.open;\n",
    );
    const loaderUrl = pathToFileURL(join(ROOT, 'dist/cli/bundle-loader.js')).href;
    const script = `import { BundleLoader } from ${JSON.stringify(loaderUrl)};
process.stdout.write(JSON.stringify(new BundleLoader(${JSON.stringify(dir)}, 'off').run(${JSON.stringify(join(dir, 'main.cjs'))})));`;
    // The packages resolve from the repository's node_modules, not from the temporary directory.
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', env: { ...process.env, NODE_PATH: join(ROOT, 'node_modules') } });
    expect(JSON.parse(out)).toEqual({ atStart: [], match: true, afterUse: ['re2-wasm'], open: 'function' });
  });

  it("defers node's http2, tls and https and @parcel/watcher the same way: none is loaded until used", () => {
    const dir = mkdtempSync(join(tmpdir(), 'sigmad-bundle-loader-'));
    const loaded = "() => [...process.moduleLoadList.filter((m) => /^NativeModule (http2|tls|https)$/.test(m)).map((m) => m.slice(13)), ...(Object.keys(require.cache).some((f) => f.includes('@parcel')) ? ['@parcel/watcher'] : [])].sort()";
    writeFileSync(
      join(dir, 'main.cjs'),
      `const http2 = require('node:http2');\nconst https = require('https');\nconst watcher = require('@parcel/watcher');\nconst loaded = ${loaded};\n` +
        'exports.atStart = loaded();\nexports.server = typeof http2.createServer;\nexports.afterHttp2 = loaded();\nexports.subscribe = typeof watcher.subscribe;\nexports.request = typeof https.request;\nexports.afterAll = loaded();\n',
    );
    const loaderUrl = pathToFileURL(join(ROOT, 'dist/cli/bundle-loader.js')).href;
    const script = `import { BundleLoader } from ${JSON.stringify(loaderUrl)};
process.stdout.write(JSON.stringify(new BundleLoader(${JSON.stringify(dir)}, 'off').run(${JSON.stringify(join(dir, 'main.cjs'))})));`;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', env: { ...process.env, NODE_PATH: join(ROOT, 'node_modules') } });
    expect(JSON.parse(out)).toEqual({
      atStart: [],
      server: 'function',
      // http2 loads tls.
      afterHttp2: ['http2', 'tls'],
      subscribe: 'function',
      request: 'function',
      afterAll: ['@parcel/watcher', 'http2', 'https', 'tls'],
    });
  });
});
