// The compiled-rule cache (issue 19 §2): a second build of the same inputs starts from the stored entry
// and matches exactly what a compile matches; any change of the inputs misses; damaged bytes never
// yield other rules, only a compile.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_CORRELATION_SETTINGS } from '../../sigma/index.js';
import type { PreparedRules, RuleSet } from '../../sigma/index.js';
import { buildRuleSetCached, buildRuleSetFrom } from '../../streams/index.js';
import type { RuleInputs } from '../../streams/index.js';
import { decodeCachedRules, encodeCachedRules, ruleCacheKey } from '../../streams/detect/rule-cache.js';

const CORPUS = join(import.meta.dirname, '../../rules/sigmahq/rules/windows/process_creation');

/** 120 process-creation rules of the bundled corpus, an example correlation, and the sysmon pipeline. */
function corpusInputs(): RuleInputs {
  const files = readdirSync(CORPUS).filter((f) => f.endsWith('.yml')).sort().slice(0, 120);
  const sources = files.map((f) => ({ file: join(CORPUS, f), text: readFileSync(join(CORPUS, f), 'utf8') }));
  const first = sources[0]?.text.match(/^id: (\S+)$/m)?.[1] ?? '';
  const correlation = `title: Twice\nname: twice\ncorrelation:\n  type: event_count\n  rules: [${first}]\n  group-by: [Computer]\n  timespan: 5m\n  condition: {gte: 2}\n`;
  return { sources: [...sources, { file: 'twice.yml', text: correlation }], pipelines: [{ ref: 'sysmon' }], correlation: DEFAULT_CORRELATION_SETTINGS, emitReferenced: false };
}

/** Per rule, an event that carries the first literal of each of its field items (many of them match). */
function probeEvents(ruleSet: RuleSet): Record<string, unknown>[] {
  return ruleSet.engine.rules.map(({ rule }) => {
    const event: Record<string, unknown> = {};
    for (const detection of rule.detections.values()) {
      for (const child of detection.children) {
        if (child.kind !== 'item' || child.field === null) continue;
        const value = child.original[0];
        if (typeof value === 'string' || typeof value === 'number') event[child.field] = typeof value === 'string' ? value.replaceAll('*', '') : value;
      }
    }
    return event;
  });
}

/** What a rule set does: its rules, correlations, warnings and what it matches on `events`. */
function behaviour(ruleSet: RuleSet, events: readonly Record<string, unknown>[]) {
  return {
    rules: ruleSet.engine.rules.map((r) => [r.id, r.title, r.level, r.tags]),
    correlations: ruleSet.correlations.correlations.map((c) => c.rule.id ?? c.rule.title),
    warnings: ruleSet.warnings.map((w) => w.code),
    errors: ruleSet.errors.length,
    matches: events.map((e) => ruleSet.engine.evaluate(e).map((m) => [m.rule.index, m.matchedSelections, m.matchedFields])),
  };
}

const SMALL: RuleInputs = {
  sources: [{ file: 'r.yml', text: 'title: R\nid: 6f1a0c1e-0000-4000-8000-0000000000aa\nlogsource: {product: windows}\ndetection:\n  sel: {Image|endswith: \\x.exe, CommandLine|contains: [a, b]}\n  condition: sel\n' }],
  pipelines: [],
  correlation: DEFAULT_CORRELATION_SETTINGS,
  emitReferenced: false,
};

/** What a build without errors prepared. */
function preparedOf(ruleSet: RuleSet): PreparedRules {
  if (ruleSet.prepared === undefined) throw new Error(`the build found errors: ${ruleSet.errors.map((e) => e.message).join('; ')}`);
  return ruleSet.prepared;
}

const dirs: string[] = [];
const cacheDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'sigmad-rule-cache-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('compiled-rule cache', () => {
  it('a second build of the same inputs starts from the stored entry and matches exactly what a compile matches', () => {
    const inputs = corpusInputs();
    const dir = cacheDir();
    // Recording its automata, index and router changes nothing of what the compile matches.
    const fresh = buildRuleSetFrom(inputs, undefined, true);
    const first = buildRuleSetCached(inputs, { dir, store: true });
    const second = buildRuleSetCached(inputs, { dir, store: true });
    const reader = buildRuleSetCached(inputs, { dir, store: false });
    expect([first.cache, second.cache, reader.cache]).toEqual(['miss', 'hit', 'hit']);
    const events = probeEvents(fresh);
    const expected = behaviour(fresh, events);
    expect(expected.matches.flat().length).toBeGreaterThan(20);
    expect(expected.correlations).toEqual(['Twice']);
    expect(behaviour(second.ruleSet, events)).toEqual(expected);
    expect(behaviour(reader.ruleSet, events)).toEqual(expected);
    // The entry holds the candidate index and the logsource router as the compile built them, not the witnesses.
    const recorded = preparedOf(fresh).layout;
    expect(recorded?.index?.texts.length).toBeGreaterThan(20);
    expect({ index: second.ruleSet.prepared?.layout?.index, router: second.ruleSet.prepared?.layout?.router }).toEqual({ index: recorded?.index, router: recorded?.router });
    expect(second.ruleSet.prepared?.witnesses).toEqual([]);
    // The entry holds the compiled automata: a warm build wraps their tables, it builds none.
    expect(first.ruleSet.automataBuilt).toBeGreaterThan(10);
    expect([second.ruleSet.automataBuilt, reader.ruleSet.automataBuilt]).toEqual([0, 0]);
  });

  it('an entry gives back every document and detection with all their fields, in order, each stored once', () => {
    const inputs = corpusInputs();
    const prepared = preparedOf(buildRuleSetFrom(inputs, undefined, true));
    const key = ruleCacheKey(inputs);
    const decoded = decodeCachedRules(encodeCachedRules(key, prepared), key);
    if (decoded === undefined) throw new Error('entry did not decode');
    // Rules are read lazily, field by field: what spreads, prints and compares is the stored rule (whose
    // locations, as ever, keep file, rule and path but not line and column).
    const plain = (docs: readonly object[]): unknown =>
      JSON.parse(JSON.stringify(docs, (k, v: unknown) => (k === 'line' || k === 'col' ? undefined : v instanceof Map ? [...v] : v)));
    expect(plain(decoded.detections)).toEqual(plain(prepared.detections));
    expect(plain(decoded.documents)).toEqual(plain(prepared.documents));
    expect(decoded.detections.map((d) => Object.keys(d))).toEqual(prepared.detections.map((d) => Object.keys(d)));
    expect(plain(decoded.detections.map((d) => ({ ...d })))).toEqual(plain(prepared.detections));
    // A document no pipeline changed is its detection, as in the build (the sysmon pipeline changes these).
    const same = (p: PreparedRules): boolean[] => p.documents.map((d) => p.detections.includes(d as never));
    expect(same(decoded)).toEqual(same(prepared));
    expect(same(prepared)).toContain(false);
    const small = decodeCachedRules(encodeCachedRules(key, preparedOf(buildRuleSetFrom(SMALL, undefined, true))), key);
    expect(small?.documents[0]).toBe(small?.detections[0]);
  });

  it('a worker given the main thread\'s entry in shared memory builds from it, and only for the inputs it was stored for', () => {
    const dir = cacheDir();
    const main = buildRuleSetCached(SMALL, { dir, store: true });
    expect(main.cache).toBe('miss');
    const shared = main.shared;
    if (shared === undefined) throw new Error('no shared entry');
    expect(shared.automata.ints.buffer).toBeInstanceOf(SharedArrayBuffer);
    const events = [{ Image: 'c:\\x.exe', CommandLine: 'xa' }, { Image: 'c:\\x.exe', CommandLine: 'zz' }];
    const expected = behaviour(main.ruleSet, events);
    // Without a cache directory of its own to read: the shared entry is all it has.
    const worker = buildRuleSetCached({ ...SMALL, shared }, { dir: cacheDir(), store: false });
    expect(worker.cache).toBe('shared');
    expect(worker.ruleSet.automataBuilt).toBe(0);
    expect(behaviour(worker.ruleSet, events)).toEqual(expected);
    const other = { ...SMALL, emitReferenced: true, shared };
    expect(buildRuleSetCached(other, { dir: cacheDir(), store: false }).cache).toBe('miss');
  });

  it('misses on any change of rule bytes, file names, pipelines or correlation settings', () => {
    const dir = cacheDir();
    expect(buildRuleSetCached(SMALL, { dir, store: true }).cache).toBe('miss');
    const [source] = SMALL.sources;
    if (source === undefined) throw new Error('no source');
    const variants: RuleInputs[] = [
      { ...SMALL, sources: [{ ...source, text: source.text.replace('a, b', 'a, c') }] },
      { ...SMALL, sources: [{ ...source, file: 'other.yml' }] },
      { ...SMALL, sources: [source, { file: 'x.yml', text: '' }] },
      { ...SMALL, pipelines: [{ ref: 'sysmon' }] },
      { ...SMALL, correlation: { ...SMALL.correlation, maxEvents: SMALL.correlation.maxEvents + 1 } },
      { ...SMALL, emitReferenced: true },
    ];
    const keys = new Set([SMALL, ...variants].map((v) => ruleCacheKey(v).toString('hex')));
    expect(keys.size).toBe(variants.length + 1);
    for (const v of variants) expect(buildRuleSetCached(v, { dir, store: false }).cache).toBe('miss');
    expect(buildRuleSetCached(SMALL, { dir, store: false }).cache).toBe('hit');
  });

  it('damaged entry bytes give back the stored rules intact or nothing, never other rules', () => {
    const key = ruleCacheKey(SMALL);
    expect(preparedOf(buildRuleSetFrom(SMALL, undefined, true)).automata.length).toBeGreaterThan(0);
    const bytes = encodeCachedRules(key, preparedOf(buildRuleSetFrom(SMALL, undefined, true)));
    expect(decodeCachedRules(bytes, key)?.automata.length).toBeGreaterThan(0);
    const damage = fc.oneof(
      fc.record({ kind: fc.constant('truncate' as const), at: fc.nat(bytes.length - 1) }),
      fc.record({ kind: fc.constant('flip' as const), at: fc.nat(bytes.length - 1), mask: fc.integer({ min: 1, max: 255 }) }),
      fc.record({ kind: fc.constant('append' as const), extra: fc.uint8Array({ minLength: 1, maxLength: 8 }) }),
    );
    fc.assert(
      fc.property(damage, (d) => {
        const copy = Buffer.from(bytes);
        const damaged = d.kind === 'truncate' ? copy.subarray(0, d.at) : d.kind === 'append' ? Buffer.concat([copy, d.extra]) : (copy.writeUInt8((copy[d.at] ?? 0) ^ d.mask, d.at), copy);
        // The header and checksum cover every byte: any damage is noticed.
        expect(decodeCachedRules(damaged, key)).toBeUndefined();
      }),
      { numRuns: 300 },
    );
  });

  it('an intact entry whose packed candidate index or router does not add up is compiled over, with the same result', () => {
    const key = ruleCacheKey(SMALL);
    const prepared = preparedOf(buildRuleSetFrom(SMALL, undefined, true));
    const layout = prepared.layout;
    if (layout?.index === undefined || layout.router === undefined) throw new Error('no packed index');
    const { index, router } = layout;
    const events = [{ Image: 'c:\\x.exe', CommandLine: 'xa' }, { Image: 'c:\\x.exe', CommandLine: 'zz' }];
    const expected = behaviour(buildRuleSetFrom(SMALL), events);
    const broken = [
      { ...layout, index: { ...index, ints: index.ints.subarray(0, index.ints.length - 1) } },
      { ...layout, index: { ...index, texts: index.texts.slice(1) } },
      { ...layout, router: { ...router, groupOf: Int32Array.of(router.groups.length) } },
    ];
    for (const bad of broken) {
      const dir = cacheDir();
      // Checksummed as any entry is: only unpacking the index or router finds the fault.
      writeFileSync(join(dir, `${key.toString('hex')}.rules`), encodeCachedRules(key, { ...prepared, layout: bad }));
      const built = buildRuleSetCached(SMALL, { dir, store: false });
      expect(built.cache).toBe('miss');
      expect(behaviour(built.ruleSet, events)).toEqual(expected);
    }
    const dir = cacheDir();
    writeFileSync(join(dir, `${key.toString('hex')}.rules`), encodeCachedRules(key, prepared));
    expect(buildRuleSetCached(SMALL, { dir, store: false }).cache).toBe('hit');
  });

  it('a damaged file in the cache directory or one stored under another key is compiled over, with the same result', () => {
    const dir = cacheDir();
    buildRuleSetCached(SMALL, { dir, store: true });
    const [name] = readdirSync(dir);
    if (name === undefined) throw new Error('nothing stored');
    const file = join(dir, name);
    const entry = readFileSync(file);
    const events = [{ Image: 'c:\\x.exe', CommandLine: 'xa' }, { Image: 'c:\\x.exe', CommandLine: 'zz' }];
    const expected = behaviour(buildRuleSetFrom(SMALL), events);
    expect(expected.matches.flat()).toHaveLength(1);
    writeFileSync(file, entry.subarray(0, entry.length - 10));
    const truncated = buildRuleSetCached(SMALL, { dir, store: false });
    expect(truncated.cache).toBe('miss');
    expect(behaviour(truncated.ruleSet, events)).toEqual(expected);
    // Another input's entry copied under this key's name: its header names the other key.
    const other = { ...SMALL, emitReferenced: true };
    writeFileSync(file, encodeCachedRules(ruleCacheKey(other), preparedOf(buildRuleSetFrom(other))));
    expect(buildRuleSetCached(SMALL, { dir, store: false }).cache).toBe('miss');
    // A miss that stores mends the entry.
    expect(buildRuleSetCached(SMALL, { dir, store: true }).cache).toBe('miss');
    expect(buildRuleSetCached(SMALL, { dir, store: false }).cache).toBe('hit');
  });
});
