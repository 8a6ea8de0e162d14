// The compiled-rule cache (issue 19 §2): what a build prepared (parsed, pipeline-applied rules, the
// candidate index and logsource router as built, and the compiled automata's tables, `PreparedRules`) stored in a file named by a hash of everything the build depends on, so a
// restart, a detection worker or a reload of unchanged rules compiles only what cannot be stored. A file
// whose magic, format, key or checksum does not match is ignored: a damaged cache costs a compile, never
// different rules.
import { createHash, randomBytes } from 'node:crypto';
import { close, closeSync, fstatSync, openSync, read, readdirSync, readFileSync, readSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deserialize, serialize } from 'node:v8';
import { crc32 } from 'node:zlib';
import { buildRuleSet, packAutomata, unpackAutomata } from '../../sigma/index.js';
import type { PackedAutomata, Pipeline, PreparedRules, RuleSet } from '../../sigma/index.js';
import { makeDirectory } from '../make-directory.js';
import { bundleDigest, digestOfTree } from './code-digest.js';
import { compileEntryOffThread } from './entry-compile.js';
import { buildRuleSetFrom } from './rule-inputs.js';
import type { RuleInputs } from './rule-inputs.js';
import { restoreDocuments, storeDocuments, type StoredDocuments } from './stored-documents.js';

/** Bump when `PreparedRules` or its serialisation changes shape. */
const FORMAT = 7;
const MAGIC = Buffer.from('SIGMADRC', 'latin1');
/**
 * magic, format (u32), key (32 B), CRC-32 (u32) of what follows: seven section lengths (u32), the
 * head (the prepared rules without documents, automata and witnesses, the documents' index and the
 * plain-data half of the packed candidate index and logsource router: `v8.serialize`), the documents one
 * by one (stored-documents.ts), each of the two zero-padded to 4 bytes, then the packed automata's header
 * and ints, the candidate index's ints, the router's rule groups, and the automata's chars. The key already names the inputs, so the sum only has to catch damage: CRC-32
 * does, at a fraction of a SHA-256 over the ≈ 60 MB of a corpus entry.
 */
const HEADER_BYTES = MAGIC.length + 4 + 32 + 4;
const SUFFIX = '.rules';
/** Files kept: the serving rules and the previous ones (a reload that is rolled back). */
const KEEP = 2;

let engineDigest: Buffer | undefined;

/**
 * A digest of the running engine's code: a new build, even at the same package version, never reads an
 * older build's entries. From tsc's output that is every file of `sigma/` (loading, pipelines, witness
 * choice); inside a bundle (dist/bin, this module is then part of an entry's file) the engine is compiled into the
 * bundle's own files, so it is every `.js` and `.cjs` file of the bundle's directory: the code that actually runs
 * (not the V8 code caches beside them: made from those files, and checked against them when read), as the
 * build digested it (code-digest.ts).
 */
function engineCode(): Buffer {
  if (engineDigest !== undefined) return engineDigest;
  const self = fileURLToPath(import.meta.url);
  // Its own file (tsc's output, or the source under vitest) sits in the tree beside sigma/.
  engineDigest = /[\\/]streams[\\/]detect[\\/]rule-cache\.[jt]s$/.test(self)
    ? digestOfTree(fileURLToPath(new URL('../../sigma/', import.meta.url)), () => true)
    : bundleDigest(dirname(self));
  return engineDigest;
}

/**
 * The cache key of `inputs`: rule files (paths and bytes), pipelines, correlation settings, format, engine
 * code and the node version (a build from an entry compiles each rule's matchers only when first used, so
 * what compiled when the entry was stored must compile the same way: regex support comes with V8).
 */
export function ruleCacheKey(inputs: RuleInputs): Buffer {
  const hash = createHash('sha256').update(MAGIC).update(String(FORMAT)).update(engineCode()).update(process.version);
  // Length-prefixed, so that no two different inputs hash the same byte stream.
  const field = (text: string): void => void hash.update(`${Buffer.byteLength(text)}:`).update(text);
  field(String(inputs.sources.length));
  for (const s of inputs.sources) {
    field(s.file);
    field(s.text);
  }
  field(JSON.stringify({ pipelines: inputs.pipelines, correlation: inputs.correlation, emitReferenced: inputs.emitReferenced }));
  return hash.digest();
}

const fileOf = (dir: string, key: Buffer): string => join(dir, `${key.toString('hex')}${SUFFIX}`);

/**
 * The entry for `inputs` in `cache`, in shared memory, or undefined (see readCachedRules): the bytes read
 * ahead when they are this key's file (prefetchNewestEntry), else the file's, which a hit in `cache.dir` then
 * makes the newest for the next read-ahead.
 */
export async function readRuleCacheEntry(inputs: RuleInputs, cache: CacheFiles, ahead?: PrefetchedEntry): Promise<SharedRules | undefined> {
  const key = ruleCacheKey(inputs);
  return entryUnder(cache, key, await aheadFor(key, ahead), true)?.shared;
}

/** The bytes read ahead for a key (undefined when the read failed), and whether they are the build's file. */
interface AheadBytes {
  readonly bytes: Buffer | undefined;
  readonly bundled: boolean;
}

/** What was read ahead, once it is in, when it is `key`'s file. */
async function aheadFor(key: Buffer, ahead: PrefetchedEntry | undefined): Promise<AheadBytes | undefined> {
  return ahead !== undefined && ahead.key === key.toString('hex') ? { bytes: await ahead.bytes, bundled: ahead.bundled } : undefined;
}

/**
 * The entry under `key` and whether it is the build's (`cache.bundled`): the bytes read ahead for it when they
 * check, else the file in `cache.dir`, which a hit makes the newest when `touchHit` (a storing thread: the
 * next start reads it ahead, and it is the last one dropped), else the build's file.
 */
function entryUnder(cache: CacheFiles, key: Buffer, ahead: AheadBytes | undefined, touchHit: boolean): { readonly shared: SharedRules; readonly bundled: boolean } | undefined {
  const read = ahead?.bytes !== undefined ? decodeSharedRules(ahead.bytes, key) : undefined;
  if (read !== undefined) return { shared: read, bundled: ahead?.bundled === true };
  const stored = readCachedRules(cache.dir, key);
  if (stored !== undefined) {
    if (touchHit) touch(fileOf(cache.dir, key));
    return { shared: stored, bundled: false };
  }
  const fromBuild = cache.bundled !== undefined ? readCachedRules(cache.bundled, key) : undefined;
  return fromBuild !== undefined ? { shared: fromBuild, bundled: true } : undefined;
}

/** What the cache holds under `key`, or undefined (absent, damaged, another format or key). Never throws. */
export function readCachedRules(dir: string, key: Buffer): SharedRules | undefined {
  let bytes: Buffer;
  try {
    bytes = readShared(fileOf(dir, key));
  } catch {
    return undefined;
  }
  return decodeSharedRules(bytes, key);
}

/** An entry read ahead of its key (prefetchNewestEntry): its file's key (hex), its bytes when they arrive, and whether it is the build's. */
export interface PrefetchedEntry {
  readonly key: string;
  readonly bytes: Promise<Buffer | undefined>;
  readonly bundled: boolean;
}

/**
 * Start reading the newest entry of `cache.dir` (the one the last start or reload served: a hit makes its file
 * the newest), or with none there the build's (`cache.bundled`: a first start), into shared memory on the thread
 * pool, so that the read overlaps reading and hashing the rule files, which the key needs. Only a guess: the
 * caller uses the bytes when the file's name is the key it computes, and they are then checked as any entry is
 * (decodeSharedRules). Undefined when there is none.
 */
export function prefetchNewestEntry(cache: CacheFiles): PrefetchedEntry | undefined {
  const own = newestEntryOf(cache.dir, false);
  return own !== undefined || cache.bundled === undefined ? own : newestEntryOf(cache.bundled, true);
}

function newestEntryOf(dir: string, bundled: boolean): PrefetchedEntry | undefined {
  let newest: { name: string; mtime: number } | undefined;
  let fd: number;
  try {
    for (const name of readdirSync(dir)) {
      if (!name.endsWith(SUFFIX)) continue;
      const mtime = statSync(join(dir, name)).mtimeMs;
      if (newest === undefined || mtime > newest.mtime) newest = { name, mtime };
    }
    if (newest === undefined) return undefined;
    fd = openSync(join(dir, newest.name), 'r');
  } catch {
    return undefined;
  }
  const opened = fd;
  const bytes = new Promise<Buffer | undefined>((resolve) => {
    try {
      const buffer = Buffer.from(new SharedArrayBuffer(fstatSync(opened).size));
      // One request for the whole file: it runs on the pool however long this thread stays busy.
      read(opened, buffer, 0, buffer.length, 0, (error, n) => {
        close(opened, () => undefined);
        resolve(error === null && n === buffer.length ? buffer : undefined);
      });
    } catch {
      close(opened, () => undefined);
      resolve(undefined);
    }
  });
  return { key: newest.name.slice(0, -SUFFIX.length), bytes, bundled };
}

/** A file's bytes read straight into a SharedArrayBuffer: the entry's sections are then views of it, not copies. */
function readShared(path: string): Buffer {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    const bytes = Buffer.from(new SharedArrayBuffer(size));
    let at = 0;
    for (let n = -1; at < size && n !== 0; at += n) n = readSync(fd, bytes, at, size - at, at);
    return bytes.subarray(0, at);
  } finally {
    closeSync(fd);
  }
}

/**
 * An entry's parts in `SharedArrayBuffer`s, so that the main thread and every detection worker hold
 * one copy: the prepared rules as `v8.serialize` bytes (each thread deserialises its own objects from
 * them: the head at once, each document when first read), the automata's packed tables, which every
 * thread's automata read in place (they never write them: a promoted row goes to a per-thread copy, see
 * AhoCorasick), and the packed candidate index and router, whose postings and rule groups every thread
 * reads in place too.
 */
export interface SharedRules {
  /** The cache key (hex) the entry was stored under: a worker checks it against its own inputs. */
  readonly key: string;
  readonly head: Uint8Array;
  readonly documents: Uint8Array;
  readonly automata: PackedAutomata;
  /** The packed candidate index's ints (PackedIndex) and the router's rule groups (PackedRouter): read in place. */
  readonly index: Int32Array;
  readonly groupOf: Int32Array;
}

type Layout = NonNullable<PreparedRules['layout']>;

/**
 * What the head holds. The layout's typed arrays are sections of their own; with them the witnesses are
 * not stored (the index they were filed into is), else (a build that did not record its layout's index)
 * they are.
 */
type EntryHead = Omit<PreparedRules, 'automata' | 'detections' | 'documents' | 'layout'> & {
  readonly stored: StoredDocuments;
  readonly layout?: Omit<Layout, 'index' | 'router'> & {
    readonly index?: Omit<NonNullable<Layout['index']>, 'ints'>;
    readonly router?: Omit<NonNullable<Layout['router']>, 'groupOf'>;
  };
};

/**
 * Seven section lengths follow the header: head and documents bytes, then the automata's header, ints and
 * chars, the index's ints and the router's groups (elements).
 */
const LENGTHS_BYTES = 28;

const padded = (n: number): number => (n + 3) & ~3;

/** The entry in `bytes`, copied into shared memory, when it is whole and intact and stored under `key`. */
export function decodeSharedRules(bytes: Buffer, key: Buffer): SharedRules | undefined {
  const start = HEADER_BYTES + LENGTHS_BYTES;
  if (bytes.length < start || !bytes.subarray(0, MAGIC.length).equals(MAGIC)) return undefined;
  let at = MAGIC.length;
  if (bytes.readUInt32LE(at) !== FORMAT) return undefined;
  at += 4;
  if (!bytes.subarray(at, at + 32).equals(key)) return undefined;
  at += 32;
  if (crc32(bytes.subarray(HEADER_BYTES)) !== bytes.readUInt32LE(at)) return undefined;
  return shareEntry(bytes, key);
}

/**
 * An entry's sections as views of shared memory (the header already checked): of `bytes` itself when they
 * are a whole SharedArrayBuffer (read by readShared), else of a copy. Undefined when they do not add up.
 */
function shareEntry(bytes: Buffer, key: Buffer): SharedRules | undefined {
  const start = HEADER_BYTES + LENGTHS_BYTES;
  const [headBytes, documentsBytes, headerLength, intsLength, charsLength, indexLength, groupsLength] = Array.from({ length: LENGTHS_BYTES / 4 }, (_, i) =>
    bytes.readUInt32LE(HEADER_BYTES + 4 * i),
  ) as [number, number, number, number, number, number, number];
  const documentsAt = padded(start + headBytes);
  const headerAt = padded(documentsAt + documentsBytes);
  const intsAt = headerAt + 4 * headerLength;
  const indexAt = intsAt + 4 * intsLength;
  const groupsAt = indexAt + 4 * indexLength;
  const charsAt = groupsAt + 4 * groupsLength;
  if (charsAt + 2 * charsLength !== bytes.length) return undefined;
  let buffer = bytes.buffer;
  if (!(buffer instanceof SharedArrayBuffer) || bytes.byteOffset !== 0) {
    buffer = new SharedArrayBuffer(bytes.length);
    new Uint8Array(buffer).set(bytes);
  }
  return {
    key: key.toString('hex'),
    head: new Uint8Array(buffer, start, headBytes),
    documents: new Uint8Array(buffer, documentsAt, documentsBytes),
    automata: {
      header: new Int32Array(buffer, headerAt, headerLength),
      ints: new Int32Array(buffer, intsAt, intsLength),
      chars: new Uint16Array(buffer, charsAt, charsLength),
    },
    index: new Int32Array(buffer, indexAt, indexLength),
    groupOf: new Int32Array(buffer, groupsAt, groupsLength),
  };
}

/** The prepared rules of a shared entry (this thread's objects; the automata's tables stay shared). Throws when malformed. */
export function preparedFromShared(shared: SharedRules): PreparedRules {
  const { stored, layout, ...head } = deserialize(shared.head) as EntryHead;
  const { index, router, ...plain } = layout ?? {};
  const tables = {
    ...(index !== undefined ? { index: { ...index, ints: shared.index } } : {}),
    ...(router !== undefined ? { router: { ...router, groupOf: shared.groupOf } } : {}),
  };
  return {
    ...head,
    ...(layout !== undefined ? { layout: { ...(plain as Omit<Layout, 'index' | 'router'>), ...tables } } : {}),
    ...restoreDocuments(stored, shared.documents),
    automata: unpackAutomata(shared.automata),
  };
}

/** The prepared rules in `bytes` when they are a whole, intact entry for `key`. */
export function decodeCachedRules(bytes: Buffer, key: Buffer): PreparedRules | undefined {
  const shared = decodeSharedRules(bytes, key);
  if (shared === undefined) return undefined;
  try {
    return preparedFromShared(shared);
  } catch {
    return undefined;
  }
}

/**
 * A copy of `value` without accessor properties. Rule locations look their line and column up lazily,
 * by parsing the file again (`DocumentContext.loc`), and serialising would run every one of them: the
 * cached rules keep file, rule and path, and only a build that reports problems (never a cache hit)
 * needs lines. Shared objects stay shared.
 */
function withoutAccessors(value: unknown, copies: Map<object, unknown>): unknown {
  if (typeof value !== 'object' || value === null) return value;
  const known = copies.get(value);
  if (known !== undefined) return known;
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    copies.set(value, out);
    for (const item of value) out.push(withoutAccessors(item, copies));
    return out;
  }
  if (value instanceof Map) {
    const out = new Map<unknown, unknown>();
    copies.set(value, out);
    for (const [k, v] of value) out.set(withoutAccessors(k, copies), withoutAccessors(v, copies));
    return out;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  // Anything else (a Date in custom attributes) is left to the serialiser.
  if (proto !== Object.prototype && proto !== null) return value;
  const out: Record<string, unknown> = {};
  copies.set(value, out);
  const record = value as Record<string, unknown>;
  for (const k of Object.keys(record)) {
    // Only a location's `line` and `col` are accessors; asking every key would cost more than the copy.
    if ((k === 'line' || k === 'col') && Object.getOwnPropertyDescriptor(record, k)?.get !== undefined) continue;
    out[k] = withoutAccessors(record[k], copies);
  }
  return out;
}

/** One cache entry's bytes, in a SharedArrayBuffer of their own. */
export function encodeCachedRules(key: Buffer, prepared: PreparedRules): Buffer {
  const { warnings, automata, detections, documents, layout, witnesses, ...rules } = prepared;
  const copies = new Map<object, unknown>();
  const stored = storeDocuments(detections, documents, (doc) => withoutAccessors(doc, copies) as Record<string, unknown>);
  const { index, router, ...plainLayout } = layout ?? {};
  const headLayout =
    layout !== undefined
      ? {
          ...plainLayout,
          ...(index !== undefined ? { index: { texts: index.texts, numbers: index.numbers } } : {}),
          ...(router !== undefined ? { router: { groups: router.groups } } : {}),
        }
      : undefined;
  const head: EntryHead = {
    ...(withoutAccessors({ ...rules, witnesses: index !== undefined ? [] : witnesses, ...(headLayout !== undefined ? { layout: headLayout } : {}) }, copies) as Omit<
      EntryHead,
      'warnings' | 'stored'
    >),
    // The few warnings keep their lines: they are logged again on every start.
    warnings: warnings.map((w) => ({ ...w, ...(w.loc !== undefined ? { loc: { ...w.loc } } : {}) })),
    stored: stored.index,
  };
  const headBytes = serialize(head);
  const packed = packAutomata(automata);
  const indexInts = index?.ints ?? new Int32Array(0);
  const groupOf = router?.groupOf ?? new Int32Array(0);
  const lengths = Buffer.alloc(LENGTHS_BYTES);
  [headBytes.length, stored.bodies.length, packed.header.length, packed.ints.length, packed.chars.length, indexInts.length, groupOf.length].forEach((n, i) =>
    lengths.writeUInt32LE(n, 4 * i),
  );
  const asBytes = (a: Int32Array | Uint16Array): Buffer => Buffer.from(a.buffer, a.byteOffset, a.byteLength);
  const pad = (part: Buffer): Buffer => Buffer.alloc(padded(part.length) - part.length);
  const body = [
    lengths,
    headBytes,
    pad(headBytes),
    stored.bodies,
    pad(stored.bodies),
    asBytes(packed.header),
    asBytes(packed.ints),
    asBytes(indexInts),
    asBytes(groupOf),
    asBytes(packed.chars),
  ];
  // An empty part is skipped: zlib.crc32 answers 0, not the running sum, for a view of an empty ArrayBuffer
  // (node 20), which made every entry without automata fail its own check.
  const sum = body.reduce((c, part) => (part.length > 0 ? crc32(part, c) : c), 0);
  const format = Buffer.alloc(4);
  format.writeUInt32LE(FORMAT);
  const check = Buffer.alloc(4);
  check.writeUInt32LE(sum);
  // In shared memory from the start: the thread that stores the entry shares it with its workers as is.
  const parts = [MAGIC, format, key, check, ...body];
  const entry = Buffer.from(new SharedArrayBuffer(parts.reduce((n, part) => n + part.length, 0)));
  parts.reduce((at, part) => (entry.set(part, at), at + part.length), 0);
  return entry;
}

/**
 * Store an entry (`encodeCachedRules`) under `key` (temporary file, then rename: a reader sees a whole entry or none) and
 * drop all but the newest entries. Throws on a file system error; the caller logs it and goes on.
 */
export function writeCachedRules(dir: string, key: Buffer, entry: Buffer): void {
  makeDirectory(dir);
  const target = fileOf(dir, key);
  const temp = `${target}.${randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(temp, entry);
  renameSync(temp, target);
  const entries = readdirSync(dir)
    .filter((name) => name.endsWith(SUFFIX))
    .map((name) => ({ path: join(dir, name), mtime: statSync(join(dir, name)).mtimeMs }))
    .sort((a, b) => b.mtime - a.mtime);
  for (const old of entries.slice(KEEP)) if (old.path !== target) rmSync(old.path, { force: true });
}

/** Where the cache is and whether this thread stores entries (the main thread) or only reads them (workers). */
export interface RuleCacheUse {
  readonly dir: string;
  readonly store: boolean;
  /**
   * The entries the build made (scripts/build/bundled-rule-entry.ts: `npm start`'s profile), read when `dir`
   * has none for a key and never written or touched, so a first start need not compile the bundled corpus.
   */
  readonly bundled?: string;
}

/** Where a cache's entries are read from. */
type CacheFiles = Pick<RuleCacheUse, 'dir' | 'bundled'>;

export interface CachedBuild {
  readonly ruleSet: RuleSet;
  /**
   * `hit`: built from the stored entry; `bundled`: from the build's (`RuleCacheUse.bundled`); `shared`: from
   * the entry the main thread passed along in shared memory (`RuleInputs.shared`); `miss`: compiled from the
   * texts; `off`: no cache.
   */
  readonly cache: 'hit' | 'bundled' | 'shared' | 'miss' | 'off';
  /** The entry in shared memory (read, or just stored), for the detection workers (`RuleInputs.shared`). */
  readonly shared?: SharedRules;
  /** Why a miss could not be stored (the build itself is fine). */
  readonly storeError?: string;
  /** Time spent finding, reading and checking the entry (its key included), hit or miss. */
  readonly entryMs: number;
}

/**
 * The cache entry for `inputs`: the one a worker was given for these very inputs, else the one stored
 * under their key (entryUnder).
 */
function lookUp(inputs: RuleInputs, cache: RuleCacheUse, started = performance.now(), key = ruleCacheKey(inputs), ahead?: AheadBytes): { key: Buffer; found?: CachedBuild; entryMs: number } {
  const given = inputs.shared !== undefined && inputs.shared.key === key.toString('hex') ? inputs.shared : undefined;
  const entry = given !== undefined ? { shared: given, bundled: false } : entryUnder(cache, key, ahead, cache.store);
  const entryMs = performance.now() - started;
  const ruleSet = entry !== undefined ? buildFromShared(inputs, entry.shared) : undefined;
  if (ruleSet === undefined || entry === undefined) return { key, entryMs };
  return { key, entryMs, found: { ruleSet, cache: given !== undefined ? 'shared' : entry.bundled ? 'bundled' : 'hit', shared: entry.shared, entryMs } };
}

function touch(path: string): void {
  const now = new Date();
  try {
    utimesSync(path, now, now);
  } catch {
    // Only an ordering hint: a read-only cache directory still serves.
  }
}

/**
 * The rule set of `inputs`, starting from the cache entry when `cache` has one. A miss that builds
 * without error is stored when `cache.store`. `pipelines` are the resolved `inputs.pipelines`; `key`,
 * the inputs' cache key when the caller has just computed it (it hashes every rule text).
 */
export function buildRuleSetCached(inputs: RuleInputs, cache: RuleCacheUse | undefined, pipelines?: readonly Pipeline[], key?: Buffer): CachedBuild {
  if (cache === undefined) return { ruleSet: buildRuleSetFrom(inputs, pipelines), cache: 'off', entryMs: 0 };
  const looked = lookUp(inputs, cache, performance.now(), key ?? ruleCacheKey(inputs));
  return looked.found ?? compileAndStore(inputs, cache, looked.key, looked.entryMs, pipelines);
}

/**
 * As buildRuleSetCached, but a miss that stores compiles on a worker thread (entry-compile.ts) and this
 * thread builds from the stored entry, as a warm start would; a build with problems, or a worker that
 * cannot run, compiles here. `ahead`: the entry read ahead (prefetchNewestEntry), used when it is this key's.
 */
export async function buildRuleSetStoring(inputs: RuleInputs, cache: RuleCacheUse | undefined, pipelines?: readonly Pipeline[], ahead?: PrefetchedEntry): Promise<CachedBuild> {
  if (cache === undefined || !cache.store) return buildRuleSetCached(inputs, cache, pipelines);
  const started = performance.now();
  const wanted = ruleCacheKey(inputs);
  const { key, found, entryMs } = lookUp(inputs, cache, started, wanted, await aheadFor(wanted, ahead));
  if (found !== undefined) return found;
  const reply = await compileEntryOffThread(inputs, cache.dir);
  const stored = reply?.entry !== undefined ? shareEntry(Buffer.from(reply.entry.buffer, reply.entry.byteOffset, reply.entry.byteLength), key) : undefined;
  const ruleSet = stored !== undefined ? buildFromShared(inputs, stored) : undefined;
  if (ruleSet === undefined || stored === undefined) return compileAndStore(inputs, cache, key, entryMs, pipelines);
  return { ruleSet, cache: 'miss', entryMs, shared: stored, ...(reply?.storeError !== undefined ? { storeError: reply.storeError } : {}) };
}

/** A miss: compile here, and store the entry when `cache.store`. */
function compileAndStore(inputs: RuleInputs, cache: RuleCacheUse, key: Buffer, entryMs: number, pipelines?: readonly Pipeline[]): CachedBuild {
  const built = buildRuleSetFrom(inputs, pipelines, cache.store);
  if (!cache.store || built.prepared === undefined) return { ruleSet: built, cache: 'miss', entryMs };
  const bytes = encodeCachedRules(key, built.prepared);
  const stored = shareEntry(bytes, key);
  // This thread too evaluates from the entry, as a warm start would: the full compile (its matchers, most
  // of which no event ever selects, and its automata's own tables) is left to the collector.
  const fromStored = stored !== undefined ? buildFromShared(inputs, stored) : undefined;
  const ruleSet = fromStored !== undefined ? { ...fromStored, automataBuilt: built.automataBuilt } : { ...built, prepared: { ...built.prepared, automata: [] } };
  try {
    writeCachedRules(cache.dir, key, bytes);
    return { ruleSet, cache: 'miss', entryMs, ...(stored !== undefined ? { shared: stored } : {}) };
  } catch (error) {
    return { ruleSet, cache: 'miss', entryMs, storeError: error instanceof Error ? error.message : String(error), ...(stored !== undefined ? { shared: stored } : {}) };
  }
}

/** What a build from an entry takes besides it: the settings its key covers but it does not hold. */
export type EntrySettings = Pick<RuleInputs, 'correlation' | 'emitReferenced'>;

/**
 * The rule set built from an entry, or undefined when the entry does not deserialise or compile cleanly.
 * No rule text is read: a build from prepared rules parses none (a detection worker needs only the entry).
 */
export function buildFromShared(settings: EntrySettings, shared: SharedRules): RuleSet | undefined {
  let ruleSet: RuleSet;
  try {
    const prepared = preparedFromShared(shared);
    // Unpacking the index throws too when its parts do not add up.
    ruleSet = buildRuleSet([], { prepared, correlation: settings.correlation, emitReferenced: settings.emitReferenced });
  } catch {
    return undefined;
  }
  // An entry is only ever written for a build without errors; one that compiles with errors is not trusted.
  return ruleSet.errors.length === 0 ? ruleSet : undefined;
}
