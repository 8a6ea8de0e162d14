// The detection pool on real worker threads (the compiled worker from dist/): same answers as inline
// detection, reloads prepared on every worker before they switch, a failed prepare changes nothing.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pino from 'pino';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildRuleSetFrom, createBatchDetector, detectRules, startWorkerPool } from '../../streams/index.js';
import type { DetectedBatch, DetectSettings, RuleInputs } from '../../streams/index.js';
import { DEFAULT_CORRELATION_SETTINGS } from '../../sigma/correlation/index.js';
import { ensureBuilt, FIXTURES, ROOT } from '../e2e/harness.js';
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
