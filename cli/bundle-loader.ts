// Runs a CommonJS file of the bundle (dist/bin/*.cjs) and the bundle files it requires through `vm.Script`
// with V8's code cache (issue 19 §2/§3): parsing and compiling ≈ 3 MB of bundle code was most of the time
// from spawn to the first rule read, and Node 20 keeps no code cache of its own (`module.enableCompileCache`
// is Node 22). Each `X.cjs` may have an `X.cjs.cache` beside it: a header (magic, a CRC-32 of the source it
// was made from followed by the cached data: it only has to catch damage and a stale cache, and costs a third of a
// SHA-256 in every thread that loads the bundle) and V8's cached data. A cache that is missing, damaged or
// made from other source (V8 itself checks only the source's length and, in release builds, no checksum of
// the data), or rejected by V8 (another V8 version or other flags) is ignored: the file compiles as without one. The dist/bin launchers (sigmad.js and one per worker script, written by
// scripts/build/bundle.ts) call `runBundle`; this module is copied beside them and imports only node built-ins.
//
// SIGMAD_CODE_CACHE=off compiles without the caches (to compare); =write also (re)writes them: the build
// runs the bundle so (scripts/build/train-code-cache.ts), and a cache made after a run holds the bytecode of
// every function that run compiled, not only the top level.
import { isAscii } from 'node:buffer';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';
import { isMainThread, threadId } from 'node:worker_threads';
import { crc32 } from 'node:zlib';

const MAGIC = Buffer.from('sigmad-v8-code-cache-2\n');
const HASH_BYTES = 4;
/** How often a writing worker thread stores its caches: workers are terminated, so they never see `exit`. */
const WORKER_WRITE_MS = 250;

export const CACHE_SUFFIX = '.cache';

/**
 * External packages the bundle requires at its top level but uses only later, if at all: each is loaded on
 * the first read of one of its exports (the bundle reads them as `pkg.name` where it uses them). re2-wasm
 * (≈ 20 ms of CPU in every thread: its WebAssembly compiles on load) runs only the few regexes with a
 * catastrophic shape; lmdb (≈ 10 ms beyond msgpackr) only with `--state-db`; @parcel/watcher (≈ 25 ms: its
 * native binding) only once the daemon is ready, to watch the rules; node's http2 (≈ 20 ms, tls with it) only
 * for an OTLP/gRPC connection, https (prom-client's pushgateway requires it, which sigmad never uses), tls,
 * child_process and dns only with TLS, webhooks and other egress, or programs run.
 */
export const DEFERRED_PACKAGES: ReadonlySet<string> = new Set(['re2-wasm', 'lmdb', '@parcel/watcher', 'node:http2', 'node:tls', 'node:https', 'https', 'node:child_process', 'node:dns']);

/** A stand-in for the module `load` returns, loading it on the first question asked of it. */
function deferred(load: () => object): object {
  let module: object | undefined;
  const real = (): object => (module ??= load());
  return new Proxy(
    {},
    {
      get: (_, key) => Reflect.get(real(), key),
      has: (_, key) => Reflect.has(real(), key),
      ownKeys: () => Reflect.ownKeys(real()),
      getOwnPropertyDescriptor: (_, key) => {
        const descriptor = Reflect.getOwnPropertyDescriptor(real(), key);
        // A proxy may report a property only as configurable, its target (`{}`) having none.
        return descriptor === undefined ? undefined : { ...descriptor, configurable: true };
      },
    },
  );
}

type Mode = 'read' | 'off' | 'write';

function modeOf(value: string | undefined): Mode {
  return value === 'off' || value === 'write' ? value : 'read';
}

/** How a file was compiled: from its cache, or without one (`absent`, `mismatch`: other source, `rejected` by V8). */
export type CacheOutcome = 'accepted' | 'absent' | 'mismatch' | 'rejected' | 'off';

interface Loaded {
  readonly file: string;
  readonly source: Buffer;
  readonly script: Script;
}

interface CommonJsModule {
  exports: unknown;
}

function digest(source: Buffer, data: Buffer): Buffer {
  const sum = Buffer.alloc(HASH_BYTES);
  sum.writeUInt32LE(crc32(data, crc32(source)));
  return sum;
}

/** The cache file's bytes for V8's `data` made from `source`. */
function encodeCache(source: Buffer, data: Buffer): Buffer {
  return Buffer.concat([MAGIC, digest(source, data), data]);
}

/** V8's cached data out of a cache file's bytes, when they are whole and were made from `source`. */
function decodeCache(bytes: Buffer | undefined, source: Buffer): Buffer | undefined {
  if (bytes === undefined || bytes.length <= MAGIC.length + HASH_BYTES || !bytes.subarray(0, MAGIC.length).equals(MAGIC)) return undefined;
  const data = bytes.subarray(MAGIC.length + HASH_BYTES);
  return bytes.subarray(MAGIC.length, MAGIC.length + HASH_BYTES).equals(digest(source, data)) ? data : undefined;
}

function readOptional(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

/** A loader of one bundle directory: every file runs once, as `require` would. */
export class BundleLoader {
  readonly outcomes = new Map<string, CacheOutcome>();
  private readonly modules = new Map<string, CommonJsModule>();
  private readonly loaded: Loaded[] = [];

  constructor(
    private readonly dir: string,
    readonly mode: Mode = modeOf(process.env['SIGMAD_CODE_CACHE']),
  ) {}

  /** Runs `file` (a path inside the directory) and returns its exports. */
  run(file: string): unknown {
    const known = this.modules.get(file);
    if (known !== undefined) return known.exports;
    const bytes = readFileSync(file);
    const stored = this.mode === 'off' ? undefined : readOptional(file + CACHE_SUFFIX);
    const cachedData = decodeCache(stored, bytes);
    // A `#!` line is only valid at the very start of a script, not inside the wrapper.
    // The build writes ASCII only (bundle.ts), which latin1 decodes as UTF-8 would, without validating it.
    const source = bytes.toString(isAscii(bytes) ? 'latin1' : 'utf8').replace(/^#!/, '//');
    const wrapper = `(function (exports, require, module, __filename, __dirname) { ${source}\n})`;
    const script = new Script(wrapper, { filename: file, ...(cachedData !== undefined ? { cachedData } : {}) });
    this.outcomes.set(file, this.mode === 'off' ? 'off' : stored === undefined ? 'absent' : cachedData === undefined ? 'mismatch' : script.cachedDataRejected === true ? 'rejected' : 'accepted');
    this.loaded.push({ file, source: bytes, script });
    const module: CommonJsModule = { exports: {} };
    this.modules.set(file, module);
    const run = script.runInThisContext() as (exports: unknown, require: NodeJS.Require, module: CommonJsModule, filename: string, dirname: string) => void;
    run.call(module.exports, module.exports, this.requireFrom(file), module, file, dirname(file));
    return module.exports;
  }

  /**
   * `require` for code in `file`: the bundle's own files through this loader, anything else through node's
   * (the DEFERRED_PACKAGES on first use).
   */
  private requireFrom(file: string): NodeJS.Require {
    const nodeRequire = createRequire(file);
    const own = (id: string): boolean => id.startsWith('./') && id.endsWith('.cjs');
    const load = (id: string): unknown => (own(id) ? this.run(resolve(this.dir, id)) : DEFERRED_PACKAGES.has(id) ? deferred(() => nodeRequire(id) as object) : nodeRequire(id));
    return Object.assign(load, {
      resolve: nodeRequire.resolve,
      cache: nodeRequire.cache,
      extensions: nodeRequire.extensions,
      main: nodeRequire.main,
    });
  }

  /** Stores the cache of every file run so far (each replaced atomically: another thread may write it too). */
  writeCaches(): void {
    for (const { file, source, script } of this.loaded) {
      const temp = `${file}${CACHE_SUFFIX}.${String(process.pid)}-${String(threadId)}`;
      writeFileSync(temp, encodeCache(source, script.createCachedData()));
      renameSync(temp, file + CACHE_SUFFIX);
    }
  }

  /** In `write` mode: store the caches when the process exits, and from a worker thread every little while. */
  writeWhenDone(): void {
    if (this.mode !== 'write') return;
    if (isMainThread) process.on('exit', () => this.writeCaches());
    else setInterval(() => this.writeCaches(), WORKER_WRITE_MS).unref();
  }
}

/** A launcher's body: run `name` (a `.cjs` file beside the launcher at `launcherUrl`) with its cache. */
export function runBundle(launcherUrl: string, name: string): void {
  const dir = dirname(fileURLToPath(launcherUrl));
  const loader = new BundleLoader(dir);
  loader.writeWhenDone();
  loader.run(join(dir, name));
  // A worker thread may be terminated before its first interval: its top level at least is cached.
  if (loader.mode === 'write' && !isMainThread) loader.writeCaches();
}
