// The compiled-rule cache entry read ahead at start-up (issue 19 §2): the newest entry is read while the
// rule files are, and used only when it is the one their key names and it checks out; anything else
// (another key's entry, damaged bytes, no entry) builds as without the read-ahead, never other rules.
// The daemon's start reads it ahead, and so does `sigmad eval` (readRuleCacheEntry). With no entry of its own,
// the cache reads the build's (`npm start`'s profile, dist/rule-cache), and never writes or touches it.
import { readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CORRELATION_SETTINGS } from '../../sigma/index.js';
import type { RuleSet } from '../../sigma/index.js';
import { buildRuleSetFrom, buildRuleSetStoring, prefetchNewestEntry, readRuleCacheEntry } from '../../streams/index.js';
import type { PrefetchedEntry, RuleInputs } from '../../streams/index.js';
import { buildFromShared, ruleCacheKey } from '../../streams/detect/rule-cache.js';
import { useTempDirs } from '../state/support/temp-dirs.js';

const rule = (id: string, literal: string): string =>
  `title: R${id}\nid: 6f1a0c1e-0000-4000-8000-0000000000${id}\nlogsource: {product: windows}\ndetection:\n  sel: {Image|endswith: \\x.exe, CommandLine|contains: ${literal}}\n  condition: sel\n`;
const inputsOf = (id: string, literal: string): RuleInputs => ({
  sources: [{ file: 'r.yml', text: rule(id, literal) }],
  pipelines: [],
  correlation: DEFAULT_CORRELATION_SETTINGS,
  emitReferenced: false,
});
const A = inputsOf('aa', 'alpha');
const B = inputsOf('bb', 'beta');
const EVENTS = [{ Image: 'c:\\x.exe', CommandLine: 'alpha' }, { Image: 'c:\\x.exe', CommandLine: 'beta' }];
const matches = (ruleSet: RuleSet) => EVENTS.map((e) => ruleSet.engine.evaluate(e).map((m) => m.rule.id));
const keyOf = (inputs: RuleInputs): string => ruleCacheKey(inputs).toString('hex');

const cacheDir = useTempDirs();

/** Entries of A then B in `dir`, B's file the newer. */
async function storeBoth(dir: string): Promise<void> {
  await buildRuleSetStoring(A, { dir, store: true });
  await buildRuleSetStoring(B, { dir, store: true });
  const past = new Date(Date.now() - 60_000);
  utimesSync(join(dir, `${keyOf(A)}.rules`), past, past);
}

describe('reading the cache entry ahead', () => {
  it('reads the newest entry whole, and a build of its inputs is a hit with what a compile gives', async () => {
    const dir = cacheDir();
    await storeBoth(dir);
    const ahead = prefetchNewestEntry({ dir });
    expect(ahead?.key).toBe(keyOf(B));
    const bytes = await ahead?.bytes;
    expect(bytes?.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(bytes?.equals(readFileSync(join(dir, `${keyOf(B)}.rules`)))).toBe(true);
    const built = await buildRuleSetStoring(B, { dir, store: true }, undefined, ahead);
    expect(built.cache).toBe('hit');
    expect(matches(built.ruleSet)).toEqual(matches(buildRuleSetFrom(B)));
    expect(matches(built.ruleSet)).toEqual([[], ['6f1a0c1e-0000-4000-8000-0000000000bb']]);
  });

  it("another key's entry read ahead is passed over: the build reads its own entry", async () => {
    const dir = cacheDir();
    await storeBoth(dir);
    const ahead = prefetchNewestEntry({ dir });
    expect(ahead?.key).toBe(keyOf(B));
    const built = await buildRuleSetStoring(A, { dir, store: true }, undefined, ahead);
    expect(built.cache).toBe('hit');
    expect(matches(built.ruleSet)).toEqual(matches(buildRuleSetFrom(A)));
    // The hit made A's file the newest: the next start reads it ahead.
    expect(prefetchNewestEntry({ dir })?.key).toBe(keyOf(A));
  });

  it('damaged bytes read ahead are never used: the intact file is, and with the file damaged too the rules compile', async () => {
    const dir = cacheDir();
    await storeBoth(dir);
    const file = join(dir, `${keyOf(B)}.rules`);
    const intact = readFileSync(file);
    const damaged = Buffer.from(intact);
    damaged.writeUInt8((damaged[damaged.length - 1] ?? 0) ^ 1, damaged.length - 1);
    const aheadOf = (bytes: Buffer | undefined): PrefetchedEntry => ({ key: keyOf(B), bytes: Promise.resolve(bytes), bundled: false });
    const expected = matches(buildRuleSetFrom(B));
    const fromFile = await buildRuleSetStoring(B, { dir, store: true }, undefined, aheadOf(damaged));
    expect([fromFile.cache, matches(fromFile.ruleSet)]).toEqual(['hit', expected]);
    const failedRead = await buildRuleSetStoring(B, { dir, store: true }, undefined, aheadOf(undefined));
    expect([failedRead.cache, matches(failedRead.ruleSet)]).toEqual(['hit', expected]);
    writeFileSync(file, damaged);
    const compiled = await buildRuleSetStoring(B, { dir, store: true }, undefined, aheadOf(damaged));
    expect([compiled.cache, matches(compiled.ruleSet)]).toEqual(['miss', expected]);
    // The miss stored the entry again.
    expect(readFileSync(file).equals(intact)).toBe(true);
  });

  it("eval's entry: the bytes read ahead when they are its key's, else its file's, which then becomes the newest; damaged bytes ahead are passed over", async () => {
    const dir = cacheDir();
    await storeBoth(dir);
    const built = async (inputs: RuleInputs, ahead?: PrefetchedEntry) => {
      const shared = await readRuleCacheEntry(inputs, { dir }, ahead);
      return shared === undefined ? undefined : matches(buildFromShared(inputs, shared) as RuleSet);
    };
    const fileB = join(dir, `${keyOf(B)}.rules`);
    const intact = readFileSync(fileB);
    // B's file gone after the read ahead: the entry comes from the bytes read ahead.
    const ahead = prefetchNewestEntry({ dir });
    await ahead?.bytes;
    rmSync(fileB);
    expect(await built(B, ahead)).toEqual(matches(buildRuleSetFrom(B)));
    expect(await built(B)).toBeUndefined();
    writeFileSync(fileB, intact);
    // A's inputs with B's entry read ahead: A's file is read, and is the newest now.
    expect(await built(A, prefetchNewestEntry({ dir }))).toEqual(matches(buildRuleSetFrom(A)));
    expect(prefetchNewestEntry({ dir })?.key).toBe(keyOf(A));
    const damaged = Buffer.from(intact);
    damaged.writeUInt8((damaged[damaged.length - 1] ?? 0) ^ 1, damaged.length - 1);
    expect(await built(B, { key: keyOf(B), bytes: Promise.resolve(damaged), bundled: false })).toEqual(matches(buildRuleSetFrom(B)));
  });

  it('nothing to read ahead without an entry or a directory', () => {
    const dir = cacheDir();
    expect(prefetchNewestEntry({ dir })).toBeUndefined();
    expect(prefetchNewestEntry({ dir: join(dir, 'missing') })).toBeUndefined();
    writeFileSync(join(dir, 'notes.txt'), 'x');
    expect(readdirSync(dir)).toEqual(['notes.txt']);
    expect(prefetchNewestEntry({ dir })).toBeUndefined();
  });
});

describe("the build's entries beside the cache (RuleCacheUse.bundled)", () => {
  /** B's entry in a directory of its own, as the build leaves it, with its bytes and time. */
  async function bundledB(): Promise<{ bundled: string; file: string; bytes: Buffer; mtimeMs: number }> {
    const bundled = cacheDir();
    await buildRuleSetStoring(B, { dir: bundled, store: true });
    const file = join(bundled, `${keyOf(B)}.rules`);
    const past = new Date(Date.now() - 60_000);
    utimesSync(file, past, past);
    return { bundled, file, bytes: readFileSync(file), mtimeMs: statSync(file).mtimeMs };
  }
  const untouched = (b: Awaited<ReturnType<typeof bundledB>>): void => {
    expect(readdirSync(b.bundled)).toEqual([`${keyOf(B)}.rules`]);
    expect(readFileSync(b.file).equals(b.bytes)).toBe(true);
    expect(statSync(b.file).mtimeMs).toBe(b.mtimeMs);
  };

  it('a first start reads the build\'s entry ahead and builds from it, writing and touching nothing', async () => {
    const b = await bundledB();
    const dir = cacheDir();
    const cache = { dir, store: true, bundled: b.bundled };
    const ahead = prefetchNewestEntry(cache);
    expect([ahead?.key, ahead?.bundled]).toEqual([keyOf(B), true]);
    const built = await buildRuleSetStoring(B, cache, undefined, ahead);
    expect(built.cache).toBe('bundled');
    expect(matches(built.ruleSet)).toEqual(matches(buildRuleSetFrom(B)));
    expect(readdirSync(dir)).toEqual([]);
    untouched(b);
    // Without the read ahead, and for eval, the build's file is read.
    expect((await buildRuleSetStoring(B, cache)).cache).toBe('bundled');
    const shared = await readRuleCacheEntry(B, cache);
    expect(shared === undefined ? undefined : matches(buildFromShared(B, shared) as RuleSet)).toEqual(matches(buildRuleSetFrom(B)));
    untouched(b);
  });

  it("the cache's own entries come first, read ahead and looked up; other inputs compile and are stored in the cache", async () => {
    const b = await bundledB();
    const dir = cacheDir();
    const cache = { dir, store: true, bundled: b.bundled };
    await buildRuleSetStoring(A, { dir, store: true });
    const ahead = prefetchNewestEntry(cache);
    expect([ahead?.key, ahead?.bundled]).toEqual([keyOf(A), false]);
    expect((await buildRuleSetStoring(B, cache, undefined, ahead)).cache).toBe('bundled');
    expect((await buildRuleSetStoring(A, cache, undefined, ahead)).cache).toBe('hit');
    const C = inputsOf('cc', 'gamma');
    const compiled = await buildRuleSetStoring(C, cache);
    expect([compiled.cache, matches(compiled.ruleSet)]).toEqual(['miss', matches(buildRuleSetFrom(C))]);
    expect(readdirSync(dir).sort()).toEqual([`${keyOf(A)}.rules`, `${keyOf(C)}.rules`].sort());
    untouched(b);
  });

  it("a damaged entry of the build's is never used: the rules compile into the cache, which serves the next start", async () => {
    const b = await bundledB();
    const damaged = Buffer.from(b.bytes);
    damaged.writeUInt8((damaged[damaged.length - 1] ?? 0) ^ 1, damaged.length - 1);
    writeFileSync(b.file, damaged);
    const dir = cacheDir();
    const cache = { dir, store: true, bundled: b.bundled };
    const first = await buildRuleSetStoring(B, cache, undefined, prefetchNewestEntry(cache));
    expect([first.cache, matches(first.ruleSet)]).toEqual(['miss', matches(buildRuleSetFrom(B))]);
    const next = await buildRuleSetStoring(B, cache, undefined, prefetchNewestEntry(cache));
    expect([next.cache, matches(next.ruleSet)]).toEqual(['hit', matches(buildRuleSetFrom(B))]);
    expect(readFileSync(b.file).equals(damaged)).toBe(true);
  });
});
