import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Agent } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { readEnrichers } from '../../cli/enricher-file.js';
import { createExtractCompiler } from '../../streams/index.js';
import type { EnricherBuildDeps, SourceLookup } from '../../streams/index.js';
import { tempDir } from '../e2e/harness.js';
import { testContext } from '../streams/support.js';

const ctx = testContext();
const dispatcher = new Agent();
const deps: EnricherBuildDeps = { env: { TEAM: 'blue' }, extract: createExtractCompiler(), dispatcher, clock: ctx.clock, metrics: ctx.metrics };
const sources: SourceLookup = { get: () => undefined };
afterAll(() => dispatcher.close());

async function read(yaml: string, buildDeps = deps) {
  const file = join(tempDir('enricher-file'), 'enrichers.yml');
  writeFileSync(file, yaml);
  return readEnrichers(file, buildDeps);
}
const entry = (extra: string): string => `enrichers:\n  - id: e1\n    kind: detection\n    inject_field: x\n${extra}`;

describe('enrichers file', () => {
  it('builds every primitive with its defaults', async () => {
    const set = await read(
      `enrichers:
  - { id: t, kind: detection, type: template, inject_field: a, template: "\${detection.rule.title}" }
  - { id: h, kind: correlation, type: http, inject_field: b, url: "http://h/\${correlation.type}", extract: "$.x", extract_type: jsonpath, timeout: 2s, on_error: drop }
  - { id: c, kind: detection, type: command, inject_field: c, command: [echo, "\${TEAM}"], output: raw }
  - { id: l, kind: detection, type: lookup, inject_field: d, source: s, extract: 'data.x', extract_type: cel, default: 0 }
`,
      { ...deps, sources },
    );
    expect(set.maxConcurrent).toBe(16);
    expect(set.enrichers.map((e) => [e.id, e.kind, e.timeoutMs, e.onError, e.sync])).toEqual([
      ['t', 'detection', 5000, 'skip', true],
      ['h', 'correlation', 2000, 'drop', false],
      ['c', 'detection', 5000, 'skip', false],
      ['l', 'detection', 5000, 'skip', false],
    ]);
  });

  it('takes an empty file and an empty list as no enrichment', async () => {
    expect((await read('')).enrichers).toEqual([]);
    expect(await read('max_concurrent_enrichments: 0\nenrichers: []\n')).toEqual({ enrichers: [], maxConcurrent: 16 });
  });

  it.each([
    ['enrichers: []\nextra: 1\n', /enrichers\.yml: unknown key 'extra'/],
    [entry('    type: template\n    template: a\n    colour: red\n'), /enricher e1: unknown key 'colour'/],
    [entry('    type: teleport\n'), /enricher e1: type /],
    [entry('    type: template\n'), /enricher e1: template is required for type template/],
    [entry('    type: template\n    template: a\n    url: http://x\n'), /enricher e1: url does not apply to type template/],
    [entry('    type: template\n    template: "${correlation.type}"\n'), /enricher e1: template \$\{correlation.type\} is not allowed in a detection entry/],
    [entry('    type: template\n    template: "${a.b}"\n'), /enricher e1: template malformed reference/],
    [entry('    type: template\n    template: a\n    timeout: soon\n'), /enricher e1: timeout is not a positive duration/],
    [entry('    type: template\n    template: a\n    on_error: explode\n'), /enricher e1: on_error /],
    [entry('    type: template\n    template: a\n    scope: { levels: [severe] }\n'), /enricher e1: scope invalid level "severe"/],
    [entry('    type: template\n    template: a\n    scope: { rules: ["Bad [glob"] }\n'), /enricher e1: scope invalid glob/],
    [entry('    type: http\n    url: "http://h/${detection.rule.id}"\n    headers: { X-A: "${correlation.type}" }\n'), /enricher e1: headers.X-A /],
    [entry('    type: http\n    url: http://h/\n    extract: ".a["\n'), /enricher e1: extract jq expression "\.a\[" does not compile/],
    [entry('    type: http\n    url: http://h/\n    extract: "$["\n    extract_type: jsonpath\n'), /enricher e1: extract jsonpath expression/],
    [entry('    type: http\n    url: http://h/\n    extract: x\n    extract_type: xpath\n'), /enricher e1: extract_type /],
    [entry('    type: http\n    url: http://h/\n    cache_ttl: forever\n'), /enricher e1: cache_ttl is not a duration/],
    [entry('    type: command\n    command: []\n'), /enricher e1: command must name a program/],
    [entry('    type: command\n    command: [echo]\n    env: { A: "${correlation.type}" }\n'), /enricher e1: env.A /],
    [entry('    type: lookup\n    source: s\n'), /enricher e1: type lookup needs dynamic sources/],
  ])('refuses %j naming the entry and the key', async (yaml, message) => {
    await expect(read(yaml)).rejects.toThrow(message);
  });
});
