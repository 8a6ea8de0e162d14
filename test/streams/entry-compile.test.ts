// A cold build's compile on a worker thread (the compiled worker from dist/): it stores the entry the
// calling thread builds from, with the results of a compile; a worker that cannot run leaves the compile
// to the caller, which still stores the entry.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildRuleSet, DEFAULT_CORRELATION_SETTINGS } from '../../sigma/index.js';
import { buildRuleSetFrom, buildRuleSetStoring } from '../../streams/index.js';
import type { RuleInputs } from '../../streams/index.js';
import { compileEntryOffThread } from '../../streams/detect/entry-compile.js';
import { decodeCachedRules, ruleCacheKey } from '../../streams/detect/rule-cache.js';
import { ensureBuilt, ROOT } from '../e2e/harness.js';
import { useTempDirs } from '../state/support/temp-dirs.js';

beforeAll(ensureBuilt, 180_000);

const WORKER = pathToFileURL(join(ROOT, 'dist/streams/detect/entry-worker.js'));
const RULE = 'title: R\nid: 6f1a0c1e-0000-4000-8000-0000000000aa\nlogsource: {product: windows}\ndetection:\n  sel: {Image|endswith: \\x.exe, CommandLine|contains: [a, b]}\n  condition: sel\n';
const INPUTS: RuleInputs = { sources: [{ file: 'r.yml', text: RULE }], pipelines: [{ ref: 'sysmon' }], correlation: DEFAULT_CORRELATION_SETTINGS, emitReferenced: false };
const EVENTS = [{ Image: 'c:\\x.exe', CommandLine: 'xa' }, { Image: 'c:\\x.exe', CommandLine: 'zz' }, { Image: 'c:\\y.exe', CommandLine: 'b' }];

const cacheDir = useTempDirs();

const matches = (ruleSet: ReturnType<typeof buildRuleSet>) => EVENTS.map((e) => ruleSet.engine.evaluate(e).map((m) => [m.rule.id, m.matchedSelections, m.matchedFields]));

describe('compiling a cache entry off the main thread', () => {
  it('stores the entry and hands back its bytes, which build what a compile builds', async () => {
    const dir = cacheDir();
    const reply = await compileEntryOffThread(INPUTS, dir, WORKER);
    expect(reply?.storeError).toBeUndefined();
    expect(reply?.entry?.buffer).toBeInstanceOf(SharedArrayBuffer);
    const [name] = readdirSync(dir);
    expect(readdirSync(dir)).toHaveLength(1);
    // Stored under the worker's key: the compiled engine's code, not this test's sources, is in it.
    const key = Buffer.from(name?.slice(0, 64) ?? '', 'hex');
    const entry = reply?.entry;
    if (entry === undefined) throw new Error('no entry');
    expect(entry.subarray(12, 44)).toEqual(new Uint8Array(key));
    const prepared = decodeCachedRules(Buffer.from(entry.buffer, entry.byteOffset, entry.byteLength), key);
    expect(prepared?.detections.map((d) => d.title)).toEqual(['R']);
    const expected = matches(buildRuleSetFrom(INPUTS));
    expect(expected.flat()).toHaveLength(1);
    expect(matches(buildRuleSet(INPUTS.sources, { ...(prepared !== undefined ? { prepared } : {}) }))).toEqual(expected);
  });

  it('replies without an entry for rules with problems, and not at all when it cannot run', async () => {
    const broken = { ...INPUTS, sources: [{ file: 'r.yml', text: RULE.replace('condition: sel', 'condition: sel and') }] };
    expect(await compileEntryOffThread(broken, cacheDir(), WORKER)).toEqual({ entry: undefined });
    expect(await compileEntryOffThread(INPUTS, cacheDir(), pathToFileURL(join(ROOT, 'dist/no-such-worker.js')))).toBeUndefined();
  });

  it('a storing build is a miss that stores, then a hit, with the same results and the same problems as a compile', async () => {
    const dir = cacheDir();
    const cold = await buildRuleSetStoring(INPUTS, { dir, store: true });
    const warm = await buildRuleSetStoring(INPUTS, { dir, store: true });
    expect([cold.cache, warm.cache]).toEqual(['miss', 'hit']);
    expect(cold.shared?.key).toBe(ruleCacheKey(INPUTS).toString('hex'));
    const expected = matches(buildRuleSetFrom(INPUTS));
    expect([matches(cold.ruleSet), matches(warm.ruleSet)]).toEqual([expected, expected]);
    const broken = { ...INPUTS, sources: [{ file: 'r.yml', text: RULE.replace('condition: sel', 'condition: sel and') }] };
    const failed = await buildRuleSetStoring(broken, { dir: cacheDir(), store: true });
    expect(failed.ruleSet.errors.map((e) => e.code)).toEqual(buildRuleSetFrom(broken).errors.map((e) => e.code));
    expect(failed.ruleSet.errors.length).toBeGreaterThan(0);
  });
});
