// `sigmad eval` as a user runs it: the built CLI as a child process over fixture rules and events.
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, FIXTURES, MAIN, tempDir } from '../e2e/harness.js';

beforeAll(ensureBuilt, 180_000);

interface Run {
  readonly code: number;
  readonly stdout: string[];
  readonly stderr: string[];
}

function run(args: readonly string[], input?: string): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [MAIN, 'eval', ...args], { maxBuffer: 64 << 20 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
      const lines = (s: string) => s.split('\n').filter((l) => l !== '');
      resolve({ code, stdout: lines(stdout), stderr: lines(stderr) });
    });
    child.stdin?.end(input ?? '');
  });
}

const RULES = join(FIXTURES, 'rules');
const summary = (r: Run) => JSON.parse(r.stderr.at(-1) as string) as Record<string, number>;
const logon = (s: number) => JSON.stringify({ EventID: 4625, Computer: 'h1', '@timestamp': `2024-05-01T00:00:0${s}Z` });

describe('sigmad eval', () => {
  it('prints detections, then the correlation results the same event fired, and a summary', async () => {
    const input = [JSON.stringify({ CommandLine: 'cmd /c whoami' }), logon(1), logon(2), logon(3)].join('\n');
    const r = await run(['--rules', RULES, '-'], input);
    expect(r.code).toBe(0);
    const out = r.stdout.map((l) => JSON.parse(l) as Record<string, unknown>);
    // 'Failed Logon' feeds a correlation without `generate: true`, so it emits nothing on its own.
    expect(out.map((o) => o['rule_title'])).toEqual(['Whoami Execution', 'Many Failed Logons On One Host']);
    expect(out[0]).toMatchObject({ level: 'high', matched_selections: ['selection'], matched_fields: [{ field: 'CommandLine', value: 'cmd /c whoami' }] });
    expect(out[1]).toMatchObject({ correlation_type: 'event_count', group_key: [['Computer', 'h1']], aggregated_value: 3, timespan_secs: 600 });
    expect(summary(r)).toMatchObject({ rules_loaded: 3, rules_failed: 0, events: 4, parse_errors: 0, matches: 2 });
    expect(Object.keys(summary(r))).toEqual(['rules_loaded', 'rules_failed', 'events', 'parse_errors', 'matches', 'load_ms', 'eval_ms']);
  });

  it('emits referenced rules too with --emit-referenced, the correlation after the detection that fired it', async () => {
    const r = await run(['--rules', RULES, '--emit-referenced'], [logon(1), logon(2), logon(3)].join('\n'));
    const titles = r.stdout.map((l) => (JSON.parse(l) as Record<string, unknown>)['rule_title']);
    expect(titles).toEqual(['Failed Logon', 'Failed Logon', 'Failed Logon', 'Many Failed Logons On One Host']);
  });

  it('adds the event with --include-event and reads pretty-printed JSON objects from a file', async () => {
    const file = join(tempDir('eval'), 'events.json');
    writeFileSync(file, `{\n  "CommandLine": "whoami /all"\n}\n{\n  "CommandLine": "notepad"\n}\n`);
    const r = await run(['--rules', RULES, '--include-event', file]);
    expect(r.code).toBe(0);
    expect(r.stdout.map((l) => JSON.parse(l) as Record<string, unknown>)).toEqual([
      expect.objectContaining({ rule_title: 'Whoami Execution', event: { CommandLine: 'whoami /all' } }),
    ]);
    expect(summary(r)).toMatchObject({ events: 2, matches: 1 });
  });

  it('counts lines that do not parse and lines over 1 MiB as parse errors and goes on', async () => {
    const input = ['{not json', `{"CommandLine":"${'x'.repeat(1 << 20)}"}`, JSON.stringify({ CommandLine: 'whoami' })].join('\n');
    const r = await run(['--rules', RULES], input);
    expect(r.code).toBe(0);
    expect(summary(r)).toMatchObject({ events: 1, parse_errors: 2, matches: 1 });
  });

  it('warns once per rejected rule with its reason and still runs the others', async () => {
    const dir = tempDir('eval-rules');
    writeFileSync(join(dir, 'bad.yml'), 'title: Bad\nlogsource: {product: windows}\ndetection:\n  sel:\n    Image|nosuchmodifier: x\n  condition: sel\n');
    writeFileSync(join(dir, 'good.yml'), 'title: Good\nlogsource: {product: windows}\ndetection:\n  sel:\n    Image: x\n  condition: sel\n');
    const r = await run(['--rules', dir], JSON.stringify({ Image: 'X' }));
    expect(r.code).toBe(0);
    expect(r.stderr.filter((l) => l.startsWith('rule rejected:'))).toEqual([expect.stringMatching(/bad\.yml:5:\d+ .*nosuchmodifier/)]);
    expect(summary(r)).toMatchObject({ rules_loaded: 1, rules_failed: 1, matches: 1 });
  });

  it('reports a rule with several problems once, all its reasons on one line, and counts it once', async () => {
    const dir = tempDir('eval-rules');
    writeFileSync(join(dir, 'bad.yml'), 'title: Twice Bad\nlogsource: {product: windows}\ndetection:\n  sel:\n    A|nosuch: x\n  sel2:\n    B|bogus: y\n  condition: sel and sel2\n');
    writeFileSync(join(dir, 'good.yml'), 'title: Good\nlogsource: {product: windows}\ndetection:\n  sel:\n    Image: x\n  condition: sel\n');
    const r = await run(['--rules', dir], JSON.stringify({ Image: 'X' }));
    expect(r.stderr.filter((l) => l.startsWith('rule rejected:'))).toEqual([expect.stringMatching(/bad\.yml:5:\d+ \[Twice Bad\] .*nosuch.*; .*bad\.yml:7:\d+ .*bogus/)]);
    expect(summary(r)).toMatchObject({ rules_loaded: 1, rules_failed: 1, matches: 1 });
  });

  it('exits 2 on unusable arguments and when no rule loads', async () => {
    expect((await run([])).code).toBe(2);
    expect((await run(['--rules', RULES, '--input-format', 'xml'])).code).toBe(2);
    expect((await run(['--rules', RULES, '--no-such-flag'])).code).toBe(2);
    const empty = tempDir('eval-empty');
    const none = await run(['--rules', empty]);
    expect(none.code).toBe(2);
    expect(summary(none)).toEqual({ rules_loaded: 0, rules_failed: 0, events: 0, parse_errors: 0, matches: 0, load_ms: expect.any(Number), eval_ms: 0 });
  });

  it('exits 2 naming the path when a --rules path or the events file does not exist, before loading rules', async () => {
    const missingRules = await run(['--rules', RULES, '--rules', join(tempDir('eval-missing'), 'nope')]);
    expect(missingRules.code).toBe(2);
    expect(missingRules.stderr).toEqual([expect.stringMatching(/^sigmad: --rules .*nope: no such file or directory$/)]);
    const missingEvents = await run(['--rules', RULES, join(tempDir('eval-missing'), 'events.json')]);
    expect(missingEvents.code).toBe(2);
    expect(missingEvents.stderr).toEqual([expect.stringMatching(/^sigmad: events file .*events\.json: no such file or directory$/)]);
    const directory = await run(['--rules', RULES, tempDir('eval-dir')]);
    expect(directory.code).toBe(2);
    expect(directory.stderr).toEqual([expect.stringMatching(/is a directory$/)]);
  });

  it('routes by logsource with --logsource-routing and reports what it pruned', async () => {
    const r = await run(['--rules', RULES, '--logsource-routing', '--event-logsource', 'product=linux'], JSON.stringify({ CommandLine: 'whoami' }));
    expect(r.code).toBe(0);
    expect(r.stdout).toEqual([]);
    expect(r.stderr.at(-2)).toBe('logsource routing: {"rules_pruned_by_logsource":2,"events_without_logsource":0}');
    expect(Object.keys(summary(r))).toEqual(['rules_loaded', 'rules_failed', 'events', 'parse_errors', 'matches', 'load_ms', 'eval_ms']);
  });
});
