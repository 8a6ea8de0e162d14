// The compiled-rule cache (issue 19 §2): what a build prepared (parsed, pipeline-applied rules, their
// witnesses and the compiled automata's tables, `PreparedRules`) stored in a file named by a hash of everything the build depends on, so a
// restart, a detection worker or a reload of unchanged rules compiles only what cannot be stored. A file
// whose magic, format, key or checksum does not match is ignored: a damaged cache costs a compile, never
// different rules.
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deserialize, serialize } from 'node:v8';
import { buildRuleSet, packAutomata, unpackAutomata } from '../../sigma/index.js';
import type { PackedAutomata, Pipeline, PreparedRules, RuleSet } from '../../sigma/index.js';
import { buildRuleSetFrom } from './rule-inputs.js';
import type { RuleInputs } from './rule-inputs.js';

/** Bump when `PreparedRules` or its serialisation changes shape. */
const FORMAT = 2;
const MAGIC = Buffer.from('SIGMADRC', 'latin1');
/**
 * magic, format (u32), key (32 B), payload sha-256 (32 B), then the payload (`v8.serialize` of the
 * prepared rules, their automata packed: `StoredRules`).
 */
const HEADER_BYTES = MAGIC.length + 4 + 32 + 32;
const SUFFIX = '.rules';
/** Files kept: the serving rules and the previous ones (a reload that is rolled back). */
const KEEP = 2;

let engineDigest: Buffer | undefined;

/**
 * A digest of the running engine's code (every file of `sigma/`, which holds loading, pipelines and
 * witness choice): a new build, even at the same package version, never reads an older build's entries.
 */
function engineCode(): Buffer {
  if (engineDigest !== undefined) return engineDigest;
  const hash = createHash('sha256');
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else hash.update(entry.name).update(readFileSync(path));
    }
  };
  walk(fileURLToPath(new URL('../../sigma/', import.meta.url)));
  engineDigest = hash.digest();
  return engineDigest;
}

/** The cache key of `inputs`: rule files (paths and bytes), pipelines, correlation settings, format and engine code. */
export function ruleCacheKey(inputs: RuleInputs): Buffer {
  const hash = createHash('sha256').update(MAGIC).update(String(FORMAT)).update(engineCode());
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

/** What the cache holds under `key`, or undefined (absent, damaged, another format or key). Never throws. */
export function readCachedRules(dir: string, key: Buffer): PreparedRules | undefined {
  let bytes: Buffer;
  try {
    bytes = readFileSync(fileOf(dir, key));
  } catch {
    return undefined;
  }
  return decodeCachedRules(bytes, key);
}

/** The prepared rules in `bytes` when they are a whole, intact entry for `key`. */
export function decodeCachedRules(bytes: Buffer, key: Buffer): PreparedRules | undefined {
  if (bytes.length < HEADER_BYTES || !bytes.subarray(0, MAGIC.length).equals(MAGIC)) return undefined;
  let at = MAGIC.length;
  if (bytes.readUInt32LE(at) !== FORMAT) return undefined;
  at += 4;
  if (!bytes.subarray(at, at + 32).equals(key)) return undefined;
  at += 32;
  const sum = bytes.subarray(at, at + 32);
  const payload = bytes.subarray(HEADER_BYTES);
  if (!createHash('sha256').update(payload).digest().equals(sum)) return undefined;
  try {
    const { automata, ...rules } = deserialize(payload) as StoredRules;
    return { ...rules, automata: unpackAutomata(automata) };
  } catch {
    return undefined;
  }
}

/** The payload: the prepared rules with their automata's tables in a few large arrays. */
type StoredRules = Omit<PreparedRules, 'automata'> & { readonly automata: PackedAutomata };

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

/** One cache entry's bytes. */
export function encodeCachedRules(key: Buffer, prepared: PreparedRules): Buffer {
  const { warnings, automata, ...rules } = prepared;
  const stored: StoredRules = {
    ...(withoutAccessors(rules, new Map()) as Omit<PreparedRules, 'warnings' | 'automata'>),
    // The few warnings keep their lines: they are logged again on every start.
    warnings: warnings.map((w) => ({ ...w, ...(w.loc !== undefined ? { loc: { ...w.loc } } : {}) })),
    automata: packAutomata(automata),
  };
  const payload = serialize(stored);
  const format = Buffer.alloc(4);
  format.writeUInt32LE(FORMAT);
  return Buffer.concat([MAGIC, format, key, createHash('sha256').update(payload).digest(), payload]);
}

/**
 * Store `prepared` under `key` (temporary file, then rename: a reader sees a whole entry or none) and
 * drop all but the newest entries. Throws on a file system error; the caller logs it and goes on.
 */
export function writeCachedRules(dir: string, key: Buffer, prepared: PreparedRules): void {
  mkdirSync(dir, { recursive: true });
  const target = fileOf(dir, key);
  const temp = `${target}.${randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(temp, encodeCachedRules(key, prepared));
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
}

export interface CachedBuild {
  readonly ruleSet: RuleSet;
  /** `hit`: built from an entry; `miss`: compiled from the texts; `off`: no cache. */
  readonly cache: 'hit' | 'miss' | 'off';
  /** Why a miss could not be stored (the build itself is fine). */
  readonly storeError?: string;
}

/**
 * The rule set of `inputs`, starting from the cache entry when `cache` has one. A miss that builds
 * without error is stored when `cache.store`. `pipelines` are the resolved `inputs.pipelines`.
 */
export function buildRuleSetCached(inputs: RuleInputs, cache: RuleCacheUse | undefined, pipelines?: readonly Pipeline[]): CachedBuild {
  if (cache === undefined) return { ruleSet: buildRuleSetFrom(inputs, pipelines), cache: 'off' };
  const key = ruleCacheKey(inputs);
  const prepared = readCachedRules(cache.dir, key);
  if (prepared !== undefined) {
    const ruleSet = buildRuleSet(inputs.sources, { prepared, correlation: inputs.correlation, emitReferenced: inputs.emitReferenced });
    // An entry is only ever written for a build without errors; one that compiles with errors is not trusted.
    if (ruleSet.errors.length === 0) return { ruleSet, cache: 'hit' };
  }
  const built = buildRuleSetFrom(inputs, pipelines, cache.store);
  if (!cache.store || built.prepared === undefined) return { ruleSet: built, cache: 'miss' };
  // Stored, the automata's tables need not stay referenced (their first dense rows outlive promotions).
  const ruleSet = { ...built, prepared: { ...built.prepared, automata: [] } };
  try {
    writeCachedRules(cache.dir, key, built.prepared);
    return { ruleSet, cache: 'miss' };
  } catch (error) {
    return { ruleSet, cache: 'miss', storeError: error instanceof Error ? error.message : String(error) };
  }
}
