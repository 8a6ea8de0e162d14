// The detection pool on real worker threads (the compiled worker from dist/): same answers as inline
// detection, reloads prepared on every worker before they switch, a failed prepare changes nothing;
// workers start from main's compiled-rule cache entry, and from the texts when it does not build.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pino from 'pino';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildRuleSetFrom, createBatchDetector, detectRules, startWorkerPool } from '../../streams/index.js';
import type { DetectedBatch, DetectSettings, RuleInputs, SharedRules } from '../../streams/index.js';
import { DEFAULT_CORRELATION_SETTINGS } from '../../sigma/correlation/index.js';
import { ensureBuilt, FIXTURES, ROOT, tempDir } from '../e2e/harness.js';
import { splitIngestLines } from '../../http/ingest-lines.js';

beforeAll(ensureBuilt, 180_000);

const SCRIPT = pathToFileURL(join(ROOT, 'dist/streams/detect/detect-worker.js'));
const SETTINGS: DetectSettings = { format: 'json', syslogTzMinutes: 0, includeEvent: true };
const log = pino({ level: 'silent' });

function inputsOf(dir: string, edit: (text: string) => string = (t) => t): RuleInputs {
  const sources = readdirSync(dir).sort().map((f) => ({ file: join(dir, f), text: edit(readFileSync(join(dir, f), 'utf8')) }));
  return { sources, pipelines: [], correlation: DEFAULT_CORRELATION_SETTINGS, emitReferenced: false };
}

const RULES = join(FIXTURES, 'rules');
const LINES = [
  JSON.stringify({ CommandLine: 'whoami /all' }),
  '{broken',
  JSON.stringify({ EventID: 4625, Computer: 'h', '@timestamp': '2024-01-01T00:00:00Z' }),
  JSON.stringify({ CommandLine: 'hostname' }),
];

const withoutTime = ({ seconds: _s, ...rest }: DetectedBatch) => rest;

describe('detect worker pool', () => {
  it('answers like inline detection, switches rules only on activate, and keeps them when a prepare fails', async () => {
    const inputs = inputsOf(RULES);
    const pool = await startWorkerPool(inputs, { workers: 2, settings: SETTINGS, log, script: SCRIPT });
    try {
      const inline = createBatchDetector(SETTINGS);
      const expected = withoutTime(inline(detectRules(buildRuleSetFrom(inputs)), LINES, 0));
      const answers = await Promise.all([0, 1, 2, 3].map(() => pool.detect(LINES, 0)));
      for (const a of answers) expect(withoutTime(a)).toEqual(expected);
      expect(Array.from(expected.textLines)).toEqual([0]);
      expect(expected.parseErrors).toEqual([1]);
      expect(expected.correlate.map((c) => c.line)).toEqual([2]);

      const hostname = inputsOf(RULES, (t) => t.replace('whoami', 'hostname'));
      await pool.prepare(buildRuleSetFrom(hostname), hostname);
      expect((await pool.detect(LINES, 0)).textLines).toEqual(expected.textLines);
      pool.activate();
      expect(Array.from((await pool.detect(LINES, 0)).textLines)).toEqual([3]);

      const broken: RuleInputs = { ...inputs, pipelines: [{ ref: 'broken.yml', text: 'transformations: [ {\n' }] };
      await expect(pool.prepare(buildRuleSetFrom(inputs), broken)).rejects.toThrow(/detect worker/);
      pool.discard();
      pool.activate();
      expect(Array.from((await pool.detect(LINES, 0)).textLines)).toEqual([3]);
    } finally {
      await pool.close();
    }
    await expect(pool.detect(LINES, 0)).rejects.toThrow(/closed/);
  }, 60_000);

  it('answers a batch kept as bytes like its strings, also when its worker dies with it in flight', async () => {
    const inputs = inputsOf(RULES);
    const pool = await startWorkerPool(inputs, { workers: 1, settings: SETTINGS, log, script: SCRIPT, crashAtBatch: 1 });
    try {
      const expected = withoutTime(createBatchDetector(SETTINGS)(detectRules(buildRuleSetFrom(inputs)), LINES, 0));
      // A byte order mark, CRLF and a blank line: framed away as the string splitter does.
      const bytes = splitIngestLines(new TextEncoder().encode(`\ufeff${LINES.join('\r\n')}\n\n`)).lines;
      // The first batch dies with its worker and is sent again, packed again from main's copy.
      expect(withoutTime(await pool.detect(bytes, 0))).toEqual(expected);
      expect(withoutTime(await pool.detect(bytes, 0))).toEqual(expected);
    } finally {
      await pool.close();
    }
  }, 60_000);

  it('detects batches in flight on both workers, each as inline detection answers it, also when a worker dies with one', async () => {
    const inputs = inputsOf(RULES);
    const pool = await startWorkerPool(inputs, { workers: 2, settings: SETTINGS, log, script: SCRIPT, crashAtBatch: 1 });
    try {
      const lines = Array.from({ length: 300 }, (_, i) => LINES[i % LINES.length] as string);
      const expected = withoutTime(createBatchDetector(SETTINGS)(detectRules(buildRuleSetFrom(inputs)), lines, 0));
      expect(expected.textLines.length).toBe(75);
      // One batch per worker; the first worker dies with its batch, which is sent again, whole.
      const answers = await Promise.all([pool.detect(lines, 0), pool.detect(lines.slice(100), 0), pool.detect(lines, 0)]);
      expect(answers.map(withoutTime)).toEqual([expected, withoutTime(createBatchDetector(SETTINGS)(detectRules(buildRuleSetFrom(inputs)), lines.slice(100), 0)), expected]);
    } finally {
      await pool.close();
    }
  }, 60_000);

  it('does not start when a worker cannot build the rules', async () => {
    const broken: RuleInputs = { ...inputsOf(RULES), pipelines: [{ ref: 'missing-builtin-or-file' }] };
    await expect(startWorkerPool(broken, { workers: 2, settings: SETTINGS, log, script: SCRIPT })).rejects.toThrow(/detect worker/);
  }, 60_000);

  it('does not start when the worker script cannot run', async () => {
    const script = pathToFileURL(join(ROOT, 'dist/does-not-exist.js'));
    await expect(startWorkerPool(inputsOf(RULES), { workers: 1, settings: SETTINGS, log, script })).rejects.toThrow(/exited/);
  }, 60_000);

  it('terminates its workers and rejects the start when aborted while they build the rules', async () => {
    const aborting = new AbortController();
    const starting = startWorkerPool(inputsOf(RULES), { workers: 2, settings: SETTINGS, log, script: SCRIPT, signal: aborting.signal });
    aborting.abort();
    await expect(starting).rejects.toThrow(/closed while starting/);
  });
});

/** A logger whose lines land in `lines` (the pool logs how each worker built each generation). */
function recording(): { log: pino.Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  return { log: pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) }), lines };
}

/** Per generation, how each worker built it: `from` and the cache outcome, in worker order. */
function builds(lines: readonly Record<string, unknown>[], gen: number): string[] {
  return lines
    .filter((l) => l['msg'] === 'detect worker built its rules' && l['gen'] === gen)
    .sort((a, b) => Number(a['worker']) - Number(b['worker']))
    .map((l) => `${String(l['from'])}/${String(l['cache'])}`);
}

/**
 * `inputs` with main's cache entry for them, as the daemon passes them on; the entry file sits in `dir`.
 * Stored by dist/'s cache module, the worker's: a key covers the engine's code, which differs from source's.
 */
async function withEntry(inputs: RuleInputs, dir: string): Promise<RuleInputs & { shared: SharedRules }> {
  const cache = (await import(pathToFileURL(join(ROOT, 'dist/streams/detect/rule-cache.js')).href)) as typeof import('../../streams/detect/rule-cache.js');
  const { shared } = cache.buildRuleSetCached(inputs, { dir, store: true });
  if (shared === undefined) throw new Error('no shared entry');
  return { ...inputs, shared };
}

/** The entry under the same key with its head zeroed: it no longer deserialises (the original stays intact). */
function damaged(shared: SharedRules): SharedRules {
  return { ...shared, head: new Uint8Array(new SharedArrayBuffer(shared.head.length)) };
}

const entryFile = (dir: string): string => join(dir, readdirSync(dir).find((f) => f.endsWith('.rules')) ?? 'none');

describe('detect workers started from the cache entry', () => {
  const lines = Array.from({ length: 300 }, (_, i) => LINES[i % LINES.length] as string);
  const inlineAnswer = (inputs: RuleInputs, batch: readonly string[]) => withoutTime(createBatchDetector(SETTINGS)(detectRules(buildRuleSetFrom(inputs)), batch, 0));

  it('a worker started from main\'s entry answers as one started from the texts', async () => {
    const texts = inputsOf(RULES);
    const fromEntry = recording();
    const fromTexts = recording();
    const entryPool = await startWorkerPool(await withEntry(texts, tempDir('pool-entry')), { workers: 2, settings: SETTINGS, log: fromEntry.log, script: SCRIPT });
    const textPool = await startWorkerPool(texts, { workers: 2, settings: SETTINGS, log: fromTexts.log, script: SCRIPT });
    try {
      expect(builds(fromEntry.lines, 0)).toEqual(['entry/shared', 'entry/shared']);
      expect(builds(fromTexts.lines, 0)).toEqual(['texts/off', 'texts/off']);
      const expected = inlineAnswer(texts, lines);
      expect(expected.textLines.length).toBe(75);
      const answers = await Promise.all([entryPool.detect(lines, 0), entryPool.detect(lines, 0), textPool.detect(lines, 0), textPool.detect(lines, 0)]);
      for (const a of answers) expect(withoutTime(a)).toEqual(expected);
    } finally {
      await Promise.all([entryPool.close(), textPool.close()]);
    }
  }, 60_000);

  it('an entry that does not build makes the workers ask for the texts, which they build from the cache file or, missing or damaged, compile', async () => {
    const texts = inputsOf(RULES);
    const expected = inlineAnswer(texts, lines);
    const dir = tempDir('pool-entry');
    const { shared } = await withEntry(texts, dir);
    const badEntry: RuleInputs = { ...texts, shared: damaged(shared) };
    const corrupt = tempDir('pool-entry');
    writeFileSync(join(corrupt, readdirSync(dir)[0] as string), readFileSync(entryFile(dir)).fill(0x55, 200, 400));
    // The cache file intact (read and checked), absent, and damaged: the workers' texts path reads it.
    for (const [ruleCache, outcome] of [[dir, 'hit'], [tempDir('pool-entry'), 'miss'], [corrupt, 'miss']] as const) {
      const { log, lines: logged } = recording();
      const pool = await startWorkerPool(badEntry, { workers: 2, settings: SETTINGS, log, script: SCRIPT, ruleCache });
      try {
        expect(builds(logged, 0)).toEqual([`texts/${outcome}`, `texts/${outcome}`]);
        expect(logged.filter((l) => l['msg'] === 'detect worker could not build from the cache entry; sending it the rule texts')).toHaveLength(2);
        for (const a of await Promise.all([pool.detect(lines, 0), pool.detect(lines, 0)])) expect(withoutTime(a)).toEqual(expected);
      } finally {
        await pool.close();
      }
    }
  }, 60_000);

  it('a reload prepares from the new rules\' entry, and from their texts when that entry does not build', async () => {
    const dir = tempDir('pool-entry');
    const { log, lines: logged } = recording();
    const pool = await startWorkerPool(await withEntry(inputsOf(RULES), dir), { workers: 2, settings: SETTINGS, log, script: SCRIPT, ruleCache: dir });
    try {
      const hostname = await withEntry(inputsOf(RULES, (t) => t.replace('whoami', 'hostname')), dir);
      await pool.prepare(buildRuleSetFrom(hostname), hostname);
      expect(builds(logged, 1)).toEqual(['entry/shared', 'entry/shared']);
      expect(Array.from((await pool.detect(LINES, 0)).textLines)).toEqual([0]);
      pool.activate();
      expect(Array.from((await pool.detect(LINES, 0)).textLines)).toEqual([3]);

      // Its entry is stored elsewhere, not in the workers' cache directory: they compile the texts.
      const allFlag = inputsOf(RULES, (t) => t.replace('CommandLine|contains: whoami', 'CommandLine|endswith: /all'));
      const stored = await withEntry(allFlag, tempDir('pool-entry'));
      await pool.prepare(buildRuleSetFrom(allFlag), { ...stored, shared: damaged(stored.shared) });
      expect(builds(logged, 2)).toEqual(['texts/miss', 'texts/miss']);
      pool.activate();
      expect(Array.from((await pool.detect(LINES, 0)).textLines)).toEqual([0]);
      expect(withoutTime(await pool.detect(lines, 0))).toEqual(inlineAnswer(allFlag, lines));
    } finally {
      await pool.close();
    }
  }, 60_000);
});
